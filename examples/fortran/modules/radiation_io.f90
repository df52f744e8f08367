! In the style of ecRad's radiation_io (not a copy): the output units and the abort
! routine every ecRad module calls on a configuration or input error.
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
