! In the style of ecRad's radiation_io (not a copy): output units and abort.
module radiation_io
  implicit none
  integer :: nulout = 6
  integer :: nulerr = 0
contains
  subroutine radiation_abort(text)
    character(len=*), intent(in), optional :: text
    if (present(text)) then
      write(nulerr, '(a)') text
    end if
    error stop 1
  end subroutine radiation_abort
end module radiation_io
