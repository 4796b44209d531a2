! fmpi_f08.f90 - MPI through use mpi_f08: per rank 3 x (MPI_Send or MPI_Recv of 100
! doubles, MPI_Allreduce of 10 doubles, MPI_Bcast of 7 integers from rank 0).
! check_fmpi.py knows these numbers.
program fmpi_f08
  use mpi_f08
  implicit none
  integer :: ierr
  type(MPI_Status) :: st
  integer, parameter :: steps = 3
  double precision :: buf(100), red(10)
  integer :: bc(7), rank, nranks, k
  buf = 1.0d0
  red = 2.0d0
  bc = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  do k = 1, steps
    if (mod(rank, 2) == 0) then
      call MPI_Send(buf, 100, MPI_DOUBLE_PRECISION, rank + 1, 7, MPI_COMM_WORLD, ierr)
    else
      call MPI_Recv(buf, 100, MPI_DOUBLE_PRECISION, rank - 1, 7, MPI_COMM_WORLD, st, ierr)
    end if
    call MPI_Allreduce(MPI_IN_PLACE, red, 10, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Bcast(bc, 7, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program fmpi_f08
