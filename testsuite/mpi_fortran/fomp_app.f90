! fomp_app.f90 - a gfortran OpenMP program (libgomp ABI) without MPI:
! 5 parallel regions, each with a worksharing loop.  The loop is dynamic:
! GCC compiles a static loop inline, with no runtime call OMPT could see.  Run through
! tally-run --libomp=auto it runs on LLVM libomp, so the OMPT tool sees
! every thread: check_fortran.py wants one row per OpenMP thread and 5
! parallel-region visits on each.
program fomp_app
  use omp_lib
  implicit none
  integer :: k, i
  double precision :: s
  s = 0
  do k = 1, 5
!$omp parallel do reduction(+:s) schedule(dynamic, 1000)
    do i = 1, 200000
      s = s + i * 0.5d0
    end do
!$omp end parallel do
  end do
  print '(a,i0,a,f0.0)', 'threads ', omp_get_max_threads(), ' sum ', s
end program fomp_app
