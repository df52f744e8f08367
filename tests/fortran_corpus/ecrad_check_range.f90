! In the style of ecRad's out_of_physical_bounds checks (not a copy).
! Exercises: a logical function with a character dummy, optional
! arguments with present(), any(), minval/maxval, write(nulout,...) on
! the diagnostic path, and a kernel that calls it then scales a field.
! corpus: modules/parkind1.f90 modules/radiation_io.f90 --sizes ncol=4,nlev=3 --init var=uniform(0,1) --wrt var --of var
module radiation_check
  use parkind1, only : jprb
  implicit none
contains

  function out_of_bounds_2d(var, var_name, boundmin, boundmax, do_fix, i1, i2) result(is_bad)
    use radiation_io, only : nulout
    real(jprb), allocatable, intent(inout) :: var(:,:)
    character(len=*), intent(in) :: var_name
    real(jprb), intent(in) :: boundmin, boundmax
    logical, intent(in) :: do_fix
    integer, optional, intent(in) :: i1, i2
    logical :: is_bad
    integer :: jj

    is_bad = .false.
    if (allocated(var)) then
      if (any(var < boundmin) .or. any(var > boundmax)) then
        is_bad = .true.
        write(nulout,'(a,a,a,g12.4,a,g12.4)') '*** Warning: ', var_name, ' range ', &
             &  minval(var), ' to ', maxval(var)
        if (do_fix) then
          if (present(i1) .and. present(i2)) then
            do jj = i1, i2
              var(:,jj) = max(boundmin, min(boundmax, var(:,jj)))
            end do
          else
            var = max(boundmin, min(boundmax, var))
          end if
        end if
      end if
    end if
  end function out_of_bounds_2d

  subroutine clip_and_scale(ncol, nlev, var)
    integer, intent(in) :: ncol, nlev
    real(jprb), allocatable, intent(inout) :: var(:,:)
    logical :: bad
    bad = out_of_bounds_2d(var, 'cloud_fraction', 0.0_jprb, 0.9_jprb, .true., 1, nlev)
    var = var * 2.0_jprb
  end subroutine clip_and_scale

end module radiation_check
