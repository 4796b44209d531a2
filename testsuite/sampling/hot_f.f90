! hot_f.f90 - the Fortran hot spot of hot_app (10% of its work).
subroutine hot_fortran(n, x) bind(C, name="hot_fortran")
  use iso_c_binding
  implicit none
  integer(c_long), value :: n
  real(c_double), intent(inout) :: x
  integer(c_long) :: i
  do i = 1, n
    x = x * 1.0000001d0 + 1d-9
    if (x > 2d0) x = x - 1d0
  end do
end subroutine hot_fortran
