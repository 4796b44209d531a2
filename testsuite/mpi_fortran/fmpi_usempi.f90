! fmpi_usempi.f90 - MPI through use mpi; the workload is fmpi_body.inc.
program fmpi_usempi
  use mpi
  implicit none
  integer :: ierr
  integer :: st(MPI_STATUS_SIZE)
  include 'fmpi_body.inc'
end program fmpi_usempi
