! f90_api.f90 -- PnetCDF's Fortran 90 module (use pnetcdf, nf90mpi_*): the generic procedures
! over kinds and ranks, attributes, inquiry, nonblocking and buffered puts, errors. Built
! against exacdf and against Debian's PnetCDF; run_pair.sh compares output and files.
program f90_api
  use mpi
  use pnetcdf
  implicit none
  ! PnetCDF's module does not export its kind names
  integer, parameter :: OneByteInt = selected_int_kind(2), TwoByteInt = selected_int_kind(4)
  integer, parameter :: FourByteInt = selected_int_kind(9), EightByteInt = selected_int_kind(18)
  integer, parameter :: FourByteReal = selected_real_kind(P=6, R=37)
  integer, parameter :: EightByteReal = selected_real_kind(P=13, R=307)
  integer, parameter :: NXL = 2, NY = 3
  integer :: ierr, rank, nprocs, nerrs, ncid, err, i, j, k, r
  integer :: dx, dy, dt, d1, v1, v2, v4, v8, vr, vd, vt, vs, vrec, v7, nd, nv, na, ul, fm, xt, nat
  integer :: reqs(4), sts(4), dids(7), ivals(3), vn(2, 2), vni(2, 2), ftype, vx1
  integer(kind=MPI_OFFSET_KIND) :: stn(2, 2), ctn(2, 2)
  character(len=1) :: tx(2), txi(2)
  integer(kind=MPI_OFFSET_KIND) :: nx, st(2), ct(2), ln
  character(len=512) :: dir
  character(len=NF90_MAX_NAME) :: nm
  character(len=20) :: txt
  integer(kind=OneByteInt) :: b(NXL, NY), bi(NXL, NY)
  integer(kind=TwoByteInt) :: s(NXL, NY), si(NXL, NY)
  integer(kind=FourByteInt) :: n(NXL, NY), ni(NXL, NY), n1(NXL), n1i(NXL)
  integer(kind=EightByteInt) :: l(NXL, NY), li(NXL, NY), lsc
  real(kind=FourByteReal) :: f(NXL, NY), fi(NXL, NY), fa(3)
  real(kind=EightByteReal) :: d(NXL, NY), di(NXL, NY), dsc, da(2)
  real(kind=EightByteReal) :: d3(NXL, 1, NY), d4(NXL, 1, 1, NY), d5(NXL, 1, 1, 1, NY)
  real(kind=EightByteReal) :: d6(NXL, 1, 1, 1, 1, NY), d7(NXL, 1, 1, 1, 1, 1, NY), d7i(NXL, 1, 1, 1, 1, 1, NY)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  nerrs = 0
  nx = NXL * nprocs

  err = nf90mpi_create(MPI_COMM_WORLD, trim(dir)//'/f90_api.nc', ior(NF90_CLOBBER, NF90_64BIT_DATA), &
                       MPI_INFO_NULL, ncid); call check(err, 'create')
  err = nf90mpi_def_dim(ncid, 'x', nx, dx); call check(err, 'def_dim')
  err = nf90mpi_def_dim(ncid, 'y', int(NY, MPI_OFFSET_KIND), dy); call check(err, 'def_dim')
  err = nf90mpi_def_dim(ncid, 'one', 1_MPI_OFFSET_KIND, d1); call check(err, 'def_dim')
  err = nf90mpi_def_dim(ncid, 'time', NF90MPI_UNLIMITED, dt); call check(err, 'def_dim')
  err = nf90mpi_def_var(ncid, 'b', NF90_BYTE, (/dx, dy/), v1); call check(err, 'def_var')
  err = nf90mpi_def_var(ncid, 's', NF90_SHORT, (/dx, dy/), v2); call check(err, 'def_var')
  err = nf90mpi_def_var(ncid, 'n', NF90_INT, (/dx, dy/), v4); call check(err, 'def_var')
  err = nf90mpi_def_var(ncid, 'l', NF90_INT64, (/dx, dy/), v8); call check(err, 'def_var')
  err = nf90mpi_def_var(ncid, 'f', NF90_FLOAT, (/dx, dy/), vr); call check(err, 'def_var')
  err = nf90mpi_def_var(ncid, 'd', NF90_DOUBLE, (/dx, dy/), vd); call check(err, 'def_var')
  err = nf90mpi_def_var(ncid, 't', NF90_CHAR, (/dx, dy/), vt); call check(err, 'def_var')
  err = nf90mpi_def_var(ncid, 'sc', NF90_INT64, vs); call check(err, 'def_var scalar')
  err = nf90mpi_def_var(ncid, 'rec', NF90_INT, (/dx, dt/), vrec); call check(err, 'def_var rec')
  err = nf90mpi_def_var(ncid, 'd7', NF90_DOUBLE, (/dx, d1, d1, d1, d1, d1, dy/), v7)
  call check(err, 'def_var 7d')
  err = nf90mpi_def_var(ncid, 'x1', NF90_INT, dx, i); call check(err, 'def_var onedim')
  err = nf90mpi_put_att(ncid, NF90_GLOBAL, 'title', 'f90 api'); call check(err, 'att text')
  err = nf90mpi_put_att(ncid, v1, 'b1', 7_OneByteInt); call check(err, 'att b')
  err = nf90mpi_put_att(ncid, v2, 's1', (/-2_TwoByteInt, 3_TwoByteInt/)); call check(err, 'att s')
  err = nf90mpi_put_att(ncid, v4, 'n1', (/1, 2, 3/)); call check(err, 'att n')
  err = nf90mpi_put_att(ncid, v8, 'l1', -2_EightByteInt**40); call check(err, 'att l')
  err = nf90mpi_put_att(ncid, vr, 'f1', (/0.5, 1.5, -2.5/)); call check(err, 'att f')
  err = nf90mpi_put_att(ncid, vd, 'd1', 1.0d-3); call check(err, 'att d')
  err = nf90mpi_def_var_fill(ncid, v4, 0, -5); call check(err, 'def_var_fill')
  err = nf90mpi_enddef(ncid); call check(err, 'enddef')

  do j = 1, NY
    do i = 1, NXL
      k = rank * 100 + j * 10 + i
      b(i, j) = int(mod(k, 100), OneByteInt); s(i, j) = int(-k, TwoByteInt); n(i, j) = k * 1000
      l(i, j) = int(k, EightByteInt) * 2_EightByteInt**35; f(i, j) = real(k) / 2.0; d(i, j) = k / 16.0d0
      d7(i, 1, 1, 1, 1, 1, j) = k + 0.25d0
    end do
  end do
  st = (/int(rank * NXL + 1, MPI_OFFSET_KIND), 1_MPI_OFFSET_KIND/)
  ct = (/int(NXL, MPI_OFFSET_KIND), int(NY, MPI_OFFSET_KIND)/)
  err = nf90mpi_put_var_all(ncid, v1, b, start=st); call check(err, 'put b')
  err = nf90mpi_put_var_all(ncid, v2, s, start=st, count=ct); call check(err, 'put s')
  err = nf90mpi_put_var_all(ncid, v4, n, start=st); call check(err, 'put n')
  err = nf90mpi_put_var_all(ncid, v8, l, start=st); call check(err, 'put l')
  err = nf90mpi_put_var_all(ncid, vr, f, start=st); call check(err, 'put f')
  err = nf90mpi_put_var_all(ncid, vd, d, start=st); call check(err, 'put d')
  err = nf90mpi_put_var_all(ncid, v7, d7, start=(/st(1), 1_8, 1_8, 1_8, 1_8, 1_8, 1_8/))
  call check(err, 'put 7d')
  write(txt, '(A,I0)') 'rank', rank
  err = nf90mpi_put_var_all(ncid, vt, txt(1:NXL), start=st, count=(/int(NXL, MPI_OFFSET_KIND), 1_8/))
  call check(err, 'put text')
  err = nf90mpi_get_var_all(ncid, v1, bi, start=st); call check(err, 'get b')
  err = nf90mpi_get_var_all(ncid, v2, si, start=st); call check(err, 'get s')
  err = nf90mpi_get_var_all(ncid, v4, ni, start=st); call check(err, 'get n')
  err = nf90mpi_get_var_all(ncid, v8, li, start=st); call check(err, 'get l')
  err = nf90mpi_get_var_all(ncid, vr, fi, start=st); call check(err, 'get f')
  err = nf90mpi_get_var_all(ncid, vd, di, start=st); call check(err, 'get d')
  err = nf90mpi_get_var_all(ncid, v7, d7i, start=(/st(1), 1_8, 1_8, 1_8, 1_8, 1_8, 1_8/))
  call check(err, 'get 7d')
  call truth(all(bi == b) .and. all(si == s) .and. all(ni == n) .and. all(li == l) .and. &
             all(fi == f) .and. all(di == d) .and. all(d7i == d7), 'round trip of every kind')
  ! ranks 3..6 of the generic over the same variable (dimensions of length one)
  d3 = reshape(d, shape(d3)); d4 = reshape(d, shape(d4)); d5 = reshape(d, shape(d5))
  d6 = reshape(d, shape(d6))
  err = nf90mpi_get_var_all(ncid, vd, d3, start=st, count=ct); call check(err, 'get 3d')
  err = nf90mpi_get_var_all(ncid, vd, d4, start=st, count=ct); call check(err, 'get 4d')
  err = nf90mpi_get_var_all(ncid, vd, d5, start=st, count=ct); call check(err, 'get 5d')
  err = nf90mpi_get_var_all(ncid, vd, d6, start=st, count=ct); call check(err, 'get 6d')
  call truth(all(reshape(d3, shape(d)) == d) .and. all(reshape(d6, shape(d)) == d), 'ranks 3-6')
  ! scalar, independent, strided and mapped
  err = nf90mpi_begin_indep_data(ncid); call check(err, 'begin_indep_data')
  if (rank == nprocs - 1) then
    lsc = -42; k = 5  ! variables: PnetCDF declares these buffers intent(inout)
    err = nf90mpi_put_var(ncid, vs, lsc); call check(err, 'put scalar')
    err = nf90mpi_put_var(ncid, v4, k, start=(/1_8, 1_8/)); call check(err, 'put one')
  end if
  err = nf90mpi_end_indep_data(ncid); call check(err, 'end_indep_data')
  err = nf90mpi_get_var_all(ncid, vs, lsc); call check(err, 'get scalar')
  call say_int('scalar', int(lsc))
  n1 = (/-1, -2/)
  err = nf90mpi_put_var_all(ncid, v4, n1, start=(/st(1), 2_8/), count=(/1_8, 2_8/), &
                            stride=(/1_8, 1_8/)); call check(err, 'put strided')
  err = nf90mpi_get_var_all(ncid, v4, n1i, start=(/st(1), 2_8/), count=(/1_8, 2_8/), &
                            stride=(/1_8, 1_8/), map=(/1_8, 1_8/)); call check(err, 'get mapped')
  call truth(all(n1i == n1), 'strided/mapped')

  ! nonblocking and buffered
  ivals = (/rank, rank + 10, 0/)
  err = nf90mpi_iput_var(ncid, vrec, ivals(1:2), reqs(1), start=(/st(1), 1_8/), &
                         count=(/2_8, 1_8/)); call check(err, 'iput')
  err = nf90mpi_buffer_attach(ncid, 1024_MPI_OFFSET_KIND); call check(err, 'buffer_attach')
  n1 = (/-rank, -rank - 10/)
  err = nf90mpi_bput_var(ncid, vrec, n1, reqs(2), start=(/st(1), 2_8/), &
                         count=(/2_8, 1_8/)); call check(err, 'bput')
  err = nf90mpi_wait_all(ncid, 2, reqs, sts); call check(err, 'wait_all')
  call truth(all(sts(1:2) == NF90_NOERR), 'statuses')
  err = nf90mpi_buffer_detach(ncid); call check(err, 'buffer_detach')
  err = nf90mpi_iget_var(ncid, vrec, ivals(1:2), reqs(1), start=(/st(1), 2_8/), count=(/2_8, 1_8/))
  call check(err, 'iget')
  err = nf90mpi_wait_all(ncid, 1, reqs, sts); call check(err, 'wait_all get')
  call truth(ivals(1) == -rank .and. ivals(2) == -rank - 10, 'nonblocking round trip')

  ! varn: this rank's two x of records 3 and 4, as two subarrays; then read back
  stn(:, 1) = (/st(1), 3_8/); stn(:, 2) = (/st(1), 4_8/)
  ctn(:, 1) = (/2_8, 1_8/); ctn(:, 2) = (/2_8, 1_8/)
  vn = reshape((/(rank * 10 + i, i = 1, 4)/), (/2, 2/))
  err = nf90mpi_put_varn_all(ncid, vrec, vn, 2, stn, ctn); call check(err, 'put_varn_all')
  err = nf90mpi_get_varn_all(ncid, vrec, vni, 2, stn, ctn); call check(err, 'get_varn_all')
  call truth(all(vni == vn), 'varn round trip')
  err = nf90mpi_iget_varn(ncid, vrec, vni(:, 1), reqs(1), 1, stn(:, 2:2), ctn(:, 2:2))
  call check(err, 'iget_varn')
  err = nf90mpi_wait_all(ncid, 1, reqs, sts); call check(err, 'wait_all varn')
  call truth(all(vni(:, 1) == vn(:, 2)), 'iget_varn')
  ! vard: this rank's x of variable x1 through an MPI file type
  call MPI_Type_create_subarray(1, (/int(nx)/), (/NXL/), (/rank * NXL/), MPI_ORDER_FORTRAN, &
                                MPI_INTEGER, ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  n1 = (/rank + 100, rank + 200/)
  err = nf90mpi_inq_varid(ncid, 'x1', vx1); call check(err, 'inq_varid x1')
  err = nf90mpi_put_vard_all(ncid, vx1, ftype, n1, int(NXL, MPI_OFFSET_KIND), MPI_INTEGER)
  call check(err, 'put_vard_all')
  n1i = 0
  err = nf90mpi_get_vard_all(ncid, vx1, ftype, n1i, int(NXL, MPI_OFFSET_KIND), MPI_INTEGER)
  call check(err, 'get_vard_all')
  call truth(all(n1i == n1), 'vard round trip')
  call MPI_Type_free(ftype, ierr)
  ! text arrays (one character per element)
  tx = (/'a', 'b'/); tx(1) = achar(iachar('a') + rank)
  err = nf90mpi_put_var_all(ncid, vt, tx, start=(/st(1), 2_8/)); call check(err, 'put text 1d')
  err = nf90mpi_get_var_all(ncid, vt, txi, start=(/st(1), 2_8/)); call check(err, 'get text 1d')
  call truth(all(txi == tx), 'text array round trip')
  ! vard with a character buffer: row y = 3 of t, this rank's x
  call MPI_Type_create_subarray(2, (/int(nx), NY/), (/NXL, 1/), (/rank * NXL, 2/), MPI_ORDER_FORTRAN, &
                                MPI_CHARACTER, ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  tx = (/'v', 'w'/); tx(2) = achar(iachar('p') + rank)
  err = nf90mpi_put_vard_all(ncid, vt, ftype, tx, int(NXL, MPI_OFFSET_KIND), MPI_CHARACTER)
  call check(err, 'put_vard_all text')
  txi = ' '
  err = nf90mpi_get_vard_all(ncid, vt, ftype, txi, int(NXL, MPI_OFFSET_KIND), MPI_CHARACTER)
  call check(err, 'get_vard_all text')
  call truth(all(txi == tx), 'vard text round trip')
  call MPI_Type_free(ftype, ierr)

  ! inquiry
  err = nf90mpi_inq_var_fill(ncid, v4, i, k); call check(err, 'inq_var_fill')
  call say_int('n no_fill', i); call say_int('n fill', k)
  err = nf90mpi_inquire(ncid, nd, nv, na, ul, fm); call check(err, 'inquire')
  call say_int('ndims', nd); call say_int('nvars', nv); call say_int('natts', na)
  call say_int('unlimited', ul); call say_int('format', fm)
  err = nf90mpi_inquire_dimension(ncid, dt, nm, ln); call check(err, 'inquire_dimension')
  call say_str('dim', nm); call say_int('len', int(ln))
  err = nf90mpi_inquire_variable(ncid, v7, nm, xt, nd, dids, nat); call check(err, 'inquire_variable')
  call say_str('var', nm); call say_int('type', xt); call say_int('ndims', nd)
  call say_int('dimid 1', dids(1)); call say_int('dimid 7', dids(7))
  err = nf90mpi_inquire_attribute(ncid, vr, 'f1', xt, ln, i); call check(err, 'inquire_attribute')
  call say_int('att type', xt); call say_int('att len', int(ln)); call say_int('att num', i)
  err = nf90mpi_inq_attname(ncid, v2, 1, nm); call check(err, 'inq_attname'); call say_str('att', nm)
  err = nf90mpi_inq_varid(ncid, 'rec', i); call check(err, 'inq_varid'); call say_int('rec id', i)
  err = nf90mpi_inq_dimid(ncid, 'y', i); call check(err, 'inq_dimid'); call say_int('y id', i)
  err = nf90mpi_get_att(ncid, NF90_GLOBAL, 'title', txt); call check(err, 'get att text')
  call say_str('title', txt)
  err = nf90mpi_get_att(ncid, vr, 'f1', fa); call check(err, 'get att f')
  err = nf90mpi_get_att(ncid, vd, 'd1', dsc); call check(err, 'get att d')
  err = nf90mpi_get_att(ncid, v8, 'l1', lsc); call check(err, 'get att l')
  err = nf90mpi_get_att(ncid, v4, 'n1', ivals); call check(err, 'get att n')
  call truth(fa(3) == -2.5 .and. dsc == 1.0d-3 .and. lsc == -2_EightByteInt**40 .and. ivals(3) == 3, &
             'attributes')
  err = nf90mpi_get_att(ncid, vd, 'd1', da(1:1)); call check(err, 'get att d 1d')
  ! errors
  call expect(nf90mpi_inq_varid(ncid, 'nope', i), NF90_ENOTVAR, 'inq_varid nope')
  call expect(nf90mpi_put_var_all(ncid, v4, n, start=(/nx + 5, 1_8/)), NF90_EINVALCOORDS, 'start')
  call expect(nf90mpi_def_dim(ncid, 'z', 2_MPI_OFFSET_KIND, i), NF90_ENOTINDEFINE, 'def_dim')
  call expect(nf90mpi_get_att(ncid, vd, 'nope', dsc), NF90_ENOTATT, 'get_att nope')
  if (rank == 0) write(*, '(A)') trim(nf90mpi_strerror(NF90_ENOTVAR))
  err = nf90mpi_close(ncid); call check(err, 'close')

  ! reopen read-only: sums over every rank's part
  err = nf90mpi_open(MPI_COMM_WORLD, trim(dir)//'/f90_api.nc', NF90_NOWRITE, MPI_INFO_NULL, ncid)
  call check(err, 'open')
  do r = 0, nprocs - 1
    err = nf90mpi_get_var_all(ncid, vd, di, start=(/int(r * NXL + 1, MPI_OFFSET_KIND), 1_8/))
    call check(err, 'get d')
    call say_dbl('sum d', sum(di))
  end do
  err = nf90mpi_inquire_dimension(ncid, dt, len=ln); call check(err, 'numrecs')
  call say_int('numrecs', int(ln))
  call expect(nf90mpi_put_var_all(ncid, v4, n, start=st), NF90_EPERM, 'write read-only')
  err = nf90mpi_close(ncid); call check(err, 'close')

  call MPI_Allreduce(MPI_IN_PLACE, nerrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(A,I0)') 'errors: ', nerrs
  call MPI_Finalize(ierr)
  if (nerrs /= 0) stop 1

contains

  subroutine check(e, what)
    integer, intent(in) :: e
    character(len=*), intent(in) :: what
    if (e /= NF90_NOERR) then
      write(*, '(A,I0,A,A,A,I0,A,A)') 'rank ', rank, ': ', what, ': error ', e, ' ', &
        trim(nf90mpi_strerror(e))
      nerrs = nerrs + 1
    end if
  end subroutine check

  subroutine expect(e, want, what)
    integer, intent(in) :: e, want
    character(len=*), intent(in) :: what
    if (e /= want) then
      write(*, '(A,I0,A,A,A,I0,A,I0)') 'rank ', rank, ': ', what, ': got ', e, ' expected ', want
      nerrs = nerrs + 1
    end if
  end subroutine expect

  subroutine truth(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write(*, '(A,I0,A,A)') 'rank ', rank, ': false: ', what
      nerrs = nerrs + 1
    end if
  end subroutine truth

  subroutine say_int(what, v)
    character(len=*), intent(in) :: what
    integer, intent(in) :: v
    if (rank == 0) write(*, '(A,A,I0)') what, ' = ', v
  end subroutine say_int

  subroutine say_dbl(what, v)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: v
    if (rank == 0) write(*, '(A,A,ES24.16)') what, ' = ', v
  end subroutine say_dbl

  subroutine say_str(what, v)
    character(len=*), intent(in) :: what, v
    if (rank == 0) write(*, '(A,A,A,A)') what, ' = "', trim(v), '"'
  end subroutine say_str
end program f90_api
