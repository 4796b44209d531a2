! fmpi_f08.f90 - MPI through use mpi_f08; the workload is fmpi_body.inc.
program fmpi_f08
  use mpi_f08
  implicit none
  integer :: ierr
  type(MPI_Status) :: st
  include 'fmpi_body.inc'
end program fmpi_f08
