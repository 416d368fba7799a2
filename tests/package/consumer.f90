! consumer.f90 -- a Fortran program built against the installed exacdf through
! pkg-config exacdf-fortran (run_consumer_test.sh): module pnetcdf and pnetcdf.inc's routines.
program consumer
  use mpi
  use pnetcdf
  implicit none
  integer :: ierr, ncid, dimid, varid, vals(4), got(4)
  character(len=512) :: path
  call MPI_Init(ierr)
  call get_command_argument(1, path)
  vals = (/1, 2, 3, 4/)
  call ok(nf90mpi_create(MPI_COMM_WORLD, trim(path), NF90_CLOBBER, MPI_INFO_NULL, ncid))
  call ok(nf90mpi_def_dim(ncid, 'x', 4_MPI_OFFSET_KIND, dimid))
  call ok(nf90mpi_def_var(ncid, 'v', NF90_INT, (/dimid/), varid))
  call ok(nf90mpi_enddef(ncid))
  call ok(nf90mpi_put_var_all(ncid, varid, vals))
  call ok(nfmpi_get_vara_int_all(ncid, varid, (/1_MPI_OFFSET_KIND/), (/4_MPI_OFFSET_KIND/), got))
  call ok(nf90mpi_close(ncid))
  if (any(got /= vals)) stop 1
  call MPI_Finalize(ierr)
contains
  subroutine ok(err)
    integer, intent(in) :: err
    if (err /= NF90_NOERR) then
      write(*, '(A)') trim(nf90mpi_strerror(err))
      stop 1
    end if
  end subroutine ok
end program consumer
