! fmpi_mpifh.f90 - MPI through include 'mpif.h'; the workload is fmpi_body.inc.
program fmpi_mpifh
  implicit none
  include 'mpif.h'
  integer :: ierr
  integer :: st(MPI_STATUS_SIZE)
  include 'fmpi_body.inc'
end program fmpi_mpifh
