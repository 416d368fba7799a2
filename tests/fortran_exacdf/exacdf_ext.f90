! exacdf_ext.f90 -- the exacdf module (exacdf-only, no PnetCDF oracle): a partitioned file
! created with EXA_FORMAT_PARTITIONED and written through the pnetcdf module, its generation
! and blocks; independent define mode (EXA_INDEP_DEFINE): every rank defines its own variable.
program exacdf_ext
  use mpi
  use pnetcdf
  use exacdf
  implicit none
  integer :: ierr, rank, nprocs, ncid, err, dx, vid, fmt, dmg, nerrs, r, vals(4), got(4)
  integer(kind=8) :: gen
  integer(kind=MPI_OFFSET_KIND) :: nblocks, ncalls
  character(len=512) :: dir
  character(len=32) :: nm

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  nerrs = 0
  if (exa_inq_libvers() == ' ') call fail('exa_inq_libvers')

  ! partitioned format
  err = nf90mpi_create(MPI_COMM_WORLD, trim(dir)//'/part.exa', ior(NF90_CLOBBER, EXA_FORMAT_PARTITIONED), &
                       MPI_INFO_NULL, ncid); call check(err, 'create partitioned')
  err = nf90mpi_def_dim(ncid, 'x', int(4 * nprocs, MPI_OFFSET_KIND), dx); call check(err, 'def_dim')
  err = nf90mpi_def_var(ncid, 'v', NF90_INT, (/dx/), vid); call check(err, 'def_var')
  err = nf90mpi_enddef(ncid); call check(err, 'enddef')
  vals = (/(rank * 4 + r, r = 1, 4)/)
  err = nf90mpi_put_var_all(ncid, vid, vals, start=(/int(rank * 4 + 1, MPI_OFFSET_KIND)/))
  call check(err, 'put')
  err = exa_inq_io_calls(ncid, ncalls); call check(err, 'exa_inq_io_calls')
  if (ncalls <= 0) call fail('io calls counted')
  err = nf90mpi_close(ncid); call check(err, 'close')
  err = nf90mpi_open(MPI_COMM_WORLD, trim(dir)//'/part.exa', NF90_NOWRITE, MPI_INFO_NULL, ncid)
  call check(err, 'open partitioned')
  err = nf90mpi_inquire(ncid, formatNum=fmt); call check(err, 'inquire format')
  if (fmt /= EXA_FORMAT_PARTITIONED_V1) call fail('format is partitioned')
  err = exa_inq_generation(ncid, gen, dmg); call check(err, 'exa_inq_generation')
  if (gen < 1 .or. dmg /= 0) call fail('a committed generation, nothing damaged')
  if (rank == 0) write(*, '(A,I0)') 'generation ', gen
  err = exa_inq_blocks(ncid, nblocks); call check(err, 'exa_inq_blocks')
  if (nblocks < 1) call fail('blocks')
  err = nf90mpi_get_var_all(ncid, vid, got, start=(/int(rank * 4 + 1, MPI_OFFSET_KIND)/))
  call check(err, 'get')
  if (any(got /= vals)) call fail('values read back')
  err = nf90mpi_close(ncid); call check(err, 'close')

  ! independent define mode: each rank its own variable, found by name after enddef
  err = nf90mpi_create(MPI_COMM_WORLD, trim(dir)//'/indep.nc', ior(NF90_CLOBBER, EXA_INDEP_DEFINE), &
                       MPI_INFO_NULL, ncid); call check(err, 'create indep')
  write(nm, '(A,I0)') 'x', rank
  err = nf90mpi_def_dim(ncid, trim(nm), 3_MPI_OFFSET_KIND, dx); call check(err, 'def_dim indep')
  write(nm, '(A,I0)') 'var', rank
  err = nf90mpi_def_var(ncid, trim(nm), NF90_INT, (/dx/), vid); call check(err, 'def_var indep')
  err = nf90mpi_enddef(ncid); call check(err, 'enddef indep')
  do r = 0, nprocs - 1
    write(nm, '(A,I0)') 'var', r
    err = nf90mpi_inq_varid(ncid, trim(nm), vid); call check(err, 'inq_varid '//trim(nm))
  end do
  err = nf90mpi_close(ncid); call check(err, 'close indep')

  call MPI_Allreduce(MPI_IN_PLACE, nerrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(A,I0)') 'errors: ', nerrs
  call MPI_Finalize(ierr)
  if (nerrs /= 0) stop 1

contains

  subroutine check(e, what)
    integer, intent(in) :: e
    character(len=*), intent(in) :: what
    if (e /= NF90_NOERR) then
      write(*, '(A,I0,A,A,A,A)') 'rank ', rank, ': ', what, ': ', trim(nf90mpi_strerror(e))
      nerrs = nerrs + 1
    end if
  end subroutine check

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write(*, '(A,I0,A,A)') 'rank ', rank, ': false: ', what
    nerrs = nerrs + 1
  end subroutine fail
end program exacdf_ext
