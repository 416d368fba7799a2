! flash_io_f.f90 -- the FLASH-IO-like writer of flash_io.c (workloads.md) in Fortran, as FLASH
! itself does it: use pnetcdf, nf90mpi_* calls. Each rank holds base + mod(rank, 3) AMR blocks
! of nxb^3 interior cells with 4 guard cells per side and writes its contiguous range of blocks
! into three files: a checkpoint (24 double variables (nxb, nxb, nxb, tot_blocks) and the tree
! metadata), plot_centered (4 float variables) and plot_corner (4 float variables of nxb + 1
! corners). Guard cells stay out of the files: each variable is packed from the guarded array
! and written with one collective put. Bandwidth = data bytes / sum over files of the
! max-over-ranks time. Built against exacdf and against PnetCDF (bench/run_flash_io_f.sh).
!   flash_io_f DIR [NXB [BASE_BLOCKS]]
program flash_io_f
  use mpi
  use pnetcdf
  implicit none
  integer, parameter :: NGUARD = 4, NVARS = 24, NPLOT = 4
  integer :: ierr, rank, nprocs, nxb, base, nblk, first, tot, kind, err, i, b
  integer :: ncid, dblk, dx, dy, dz, vids(NVARS), vlref, vnode
  integer(kind=MPI_OFFSET_KIND) :: st(4), ct(4), bytes, total_bytes
  double precision, allocatable :: unk(:, :, :, :, :), dpack(:, :, :, :)
  real, allocatable :: fpack(:, :, :, :)
  integer, allocatable :: lref(:)
  double precision :: t0, t, tsum
  character(len=512) :: dir, arg
  character(len=8) :: vname
  character(len=16), parameter :: files(3) = (/'chk    ', 'plt_cnt', 'plt_crn'/)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  nxb = 8; base = 80
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg); read(arg, *) nxb
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg); read(arg, *) base
  end if
  nblk = base + mod(rank, 3)
  call MPI_Exscan(nblk, first, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) first = 0
  call MPI_Allreduce(nblk, tot, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  allocate(unk(NVARS, 1 - NGUARD:nxb + NGUARD + 1, 1 - NGUARD:nxb + NGUARD + 1, &
               1 - NGUARD:nxb + NGUARD + 1, nblk))
  do b = 1, nblk
    do i = 1, NVARS
      unk(i, :, :, :, b) = (first + b) * 100.0d0 + i
    end do
  end do
  allocate(lref(nblk)); lref = 1
  tsum = 0; bytes = 0
  do kind = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    err = nf90mpi_create(MPI_COMM_WORLD, trim(dir)//'/flash_f_'//trim(files(kind))//'.nc', &
                         ior(NF90_CLOBBER, NF90_64BIT_OFFSET), MPI_INFO_NULL, ncid)
    call check(err, 'create')
    i = nxb + merge(1, 0, kind == 3)
    err = nf90mpi_def_dim(ncid, 'dim_tot_blocks', int(tot, MPI_OFFSET_KIND), dblk); call check(err, 'def_dim')
    err = nf90mpi_def_dim(ncid, 'dim_nxb', int(i, MPI_OFFSET_KIND), dx); call check(err, 'def_dim')
    err = nf90mpi_def_dim(ncid, 'dim_nyb', int(i, MPI_OFFSET_KIND), dy); call check(err, 'def_dim')
    err = nf90mpi_def_dim(ncid, 'dim_nzb', int(i, MPI_OFFSET_KIND), dz); call check(err, 'def_dim')
    err = nf90mpi_put_att(ncid, NF90_GLOBAL, 'file_type', trim(files(kind))); call check(err, 'att')
    err = nf90mpi_def_var(ncid, 'lrefine', NF90_INT, (/dblk/), vlref); call check(err, 'def_var')
    err = nf90mpi_def_var(ncid, 'nodetype', NF90_INT, (/dblk/), vnode); call check(err, 'def_var')
    do i = 1, merge(NVARS, NPLOT, kind == 1)
      write(vname, '(A,I2.2)') 'unk', i
      err = nf90mpi_def_var(ncid, trim(vname), merge(NF90_DOUBLE, NF90_FLOAT, kind == 1), &
                            (/dx, dy, dz, dblk/), vids(i)); call check(err, 'def_var')
    end do
    err = nf90mpi_enddef(ncid); call check(err, 'enddef')
    err = nf90mpi_put_var_all(ncid, vlref, lref, start=(/int(first + 1, MPI_OFFSET_KIND)/))
    call check(err, 'put lrefine')
    err = nf90mpi_put_var_all(ncid, vnode, lref, start=(/int(first + 1, MPI_OFFSET_KIND)/))
    call check(err, 'put nodetype')
    i = nxb + merge(1, 0, kind == 3)
    st = (/1_8, 1_8, 1_8, int(first + 1, MPI_OFFSET_KIND)/)
    ct = (/int(i, 8), int(i, 8), int(i, 8), int(nblk, 8)/)
    do b = 1, merge(NVARS, NPLOT, kind == 1)
      if (kind == 1) then
        dpack = unk(b, 1:i, 1:i, 1:i, :)
        err = nf90mpi_put_var_all(ncid, vids(b), dpack, start=st, count=ct)
        bytes = bytes + 8_8 * size(dpack, kind=8)
      else
        fpack = real(unk(b, 1:i, 1:i, 1:i, :))
        err = nf90mpi_put_var_all(ncid, vids(b), fpack, start=st, count=ct)
        bytes = bytes + 4_8 * size(fpack, kind=8)
      end if
      call check(err, 'put unk')
    end do
    err = nf90mpi_close(ncid); call check(err, 'close')
    t = MPI_Wtime() - t0
    call MPI_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    tsum = tsum + t
  end do
  call MPI_Allreduce(bytes, total_bytes, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(A,I0,A,I0,A,I0,A,F10.4,A,F10.2,A)') 'flash_io_f ranks=', nprocs, &
    ' nxb=', nxb, ' blocks=', tot, ' time=', tsum, ' s bandwidth=', &
    total_bytes / tsum / 1048576.0d0, ' MiB/s'
  call MPI_Finalize(ierr)

contains

  subroutine check(e, what)
    integer, intent(in) :: e
    character(len=*), intent(in) :: what
    if (e /= NF90_NOERR) then
      write(*, '(A,I0,A,A,A,A)') 'rank ', rank, ': ', what, ': ', trim(nf90mpi_strerror(e))
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check
end program flash_io_f
