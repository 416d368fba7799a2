! f77_api.F90 -- PnetCDF's Fortran 77 API (include 'pnetcdf.inc', nfmpi_*): every routine family
! through every type. Built against exacdf and against Debian's PnetCDF; run_pair.sh compares
! their standard output (rank 0 prints) and the files they write, byte for byte.
program f77_api
  use mpi
  implicit none
  include 'pnetcdf.inc'
  integer, parameter :: NY = 3, NXL = 2
  integer(kind=MPI_OFFSET_KIND), parameter :: ONE = 1
  integer :: ierr, rank, nprocs, nerrs, ncid, err, i, j
  integer :: dx, dy, dt, dids(2), v_text, v_i1, v_i2, v_int, v_real, v_dbl, v_i8, v_rec, v_sc
  integer :: nd, nv, na, ul, xt, ndv, nav, ids(2), reqs(6), sts(6), fmt, ival, attnum
  integer(kind=MPI_OFFSET_KIND) :: st(2), ct(2), sd(2), im(2), ln, nx, stn(2, 2), ctn(2, 2), bsz
  character(len=512) :: dir
  character(len=NF_MAX_NAME) :: nm
  character(len=NXL*NY) :: tbuf, tin
  integer(kind=1) :: i1(NXL, NY), i1in(NXL, NY)
  integer(kind=2) :: i2(NXL, NY), i2in(NXL, NY)
  integer :: ib(NXL, NY), ibin(NXL, NY), tr(NY, NXL), rec(NXL, 2), recin(NXL, 2)
  real :: rb(NXL, NY), rbin(NXL, NY)
  double precision :: db(NXL, NY), dbin(NXL, NY), dsc, dsc1(1)
  integer(kind=8) :: i8(NXL, NY), i8in(NXL, NY), i8a(3)
  integer(kind=1) :: a1(2)
  integer(kind=2) :: a2(2)
  real :: ar(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  nerrs = 0
  nx = NXL * nprocs

  ! --- define: dimensions, variables of every type, attributes of every type -----------
  err = nfmpi_create(MPI_COMM_WORLD, trim(dir)//'/f77_api.nc', ior(NF_CLOBBER, NF_64BIT_DATA), &
                     MPI_INFO_NULL, ncid)
  call check(err, 'create')
  err = nfmpi_def_dim(ncid, 'x', nx, dx); call check(err, 'def_dim x')
  err = nfmpi_def_dim(ncid, 'y', int(NY, MPI_OFFSET_KIND), dy); call check(err, 'def_dim y')
  err = nfmpi_def_dim(ncid, 'time', NFMPI_UNLIMITED, dt); call check(err, 'def_dim time')
  dids = (/dx, dy/)
  err = nfmpi_def_var(ncid, 'v_text', NF_CHAR, 2, dids, v_text); call check(err, 'def_var')
  err = nfmpi_def_var(ncid, 'v_int1', NF_BYTE, 2, dids, v_i1); call check(err, 'def_var')
  err = nfmpi_def_var(ncid, 'v_int2', NF_SHORT, 2, dids, v_i2); call check(err, 'def_var')
  err = nfmpi_def_var(ncid, 'v_int', NF_INT, 2, dids, v_int); call check(err, 'def_var')
  err = nfmpi_def_var(ncid, 'v_real', NF_FLOAT, 2, dids, v_real); call check(err, 'def_var')
  err = nfmpi_def_var(ncid, 'v_double', NF_DOUBLE, 2, dids, v_dbl); call check(err, 'def_var')
  err = nfmpi_def_var(ncid, 'v_int8', NF_INT64, 2, dids, v_i8); call check(err, 'def_var')
  err = nfmpi_def_var(ncid, 'rec', NF_INT, 2, (/dx, dt/), v_rec); call check(err, 'def_var rec')
  err = nfmpi_def_var(ncid, 'scalar', NF_DOUBLE, 0, dids, v_sc); call check(err, 'def_var scalar')
  err = nfmpi_put_att_text(ncid, NF_GLOBAL, 'title', 9_MPI_OFFSET_KIND, 'f77 api  ')
  call check(err, 'put_att_text')
  a1 = (/-1_1, 2_1/); a2 = (/-300_2, 300_2/); ar = (/1.5, -2.25/); i8a = (/-5_8, 2_8**40, 7_8/)
  err = nfmpi_put_att_int1(ncid, v_i1, 'a1', NF_BYTE, 2_MPI_OFFSET_KIND, a1); call check(err, 'att1')
  err = nfmpi_put_att_int2(ncid, v_i2, 'a2', NF_SHORT, 2_MPI_OFFSET_KIND, a2); call check(err, 'att2')
  err = nfmpi_put_att_int(ncid, v_int, 'a4', NF_INT, 1_MPI_OFFSET_KIND, 42); call check(err, 'att4')
  err = nfmpi_put_att_real(ncid, v_real, 'ar', NF_FLOAT, 2_MPI_OFFSET_KIND, ar); call check(err, 'attr')
  err = nfmpi_put_att_double(ncid, v_dbl, 'ad', NF_DOUBLE, 1_MPI_OFFSET_KIND, 0.125d0)
  call check(err, 'attd')
  err = nfmpi_put_att_int8(ncid, v_i8, 'a8', NF_INT64, 3_MPI_OFFSET_KIND, i8a); call check(err, 'att8')
  err = nfmpi_put_att_int(ncid, v_real, 'conv', NF_SHORT, 1_MPI_OFFSET_KIND, 7); call check(err, 'attc')
  err = nfmpi_def_var_fill(ncid, v_int, 0, -99); call check(err, 'def_var_fill')
  ! errors in define mode
  call expect(nfmpi_def_dim(ncid, 'x', 3_MPI_OFFSET_KIND, i), NF_ENAMEINUSE, 'def_dim dup')
  call expect(nfmpi_def_var(ncid, 'bad', NF_INT, 1, (/99/), i), NF_EBADDIM, 'def_var baddim')
  call expect(nfmpi_put_vara_int_all(ncid, v_int, st, ct, ib), NF_EINDEFINE, 'put in define')
  err = nfmpi_enddef(ncid); call check(err, 'enddef')
  call expect(nfmpi_def_dim(ncid, 'z', 3_MPI_OFFSET_KIND, i), NF_ENOTINDEFINE, 'def_dim data mode')

  ! --- blocking vara, collective, every type ---------------------------------------------
  do j = 1, NY
    do i = 1, NXL
      ival = rank * 100 + j * 10 + i
      ib(i, j) = ival
      i1(i, j) = int(mod(ival, 120), 1)
      i2(i, j) = int(ival - 500, 2)
      rb(i, j) = real(ival) / 4.0
      db(i, j) = dble(ival) / 8.0d0
      i8(i, j) = int(ival, 8) * 2_8**33
      tbuf((j-1)*NXL+i:(j-1)*NXL+i) = achar(iachar('a') + mod(ival, 26))
    end do
  end do
  st = (/int(rank * NXL + 1, MPI_OFFSET_KIND), ONE/)
  ct = (/int(NXL, MPI_OFFSET_KIND), int(NY, MPI_OFFSET_KIND)/)
  err = nfmpi_put_vara_text_all(ncid, v_text, st, ct, tbuf); call check(err, 'put text')
  err = nfmpi_put_vara_int1_all(ncid, v_i1, st, ct, i1); call check(err, 'put int1')
  err = nfmpi_put_vara_int2_all(ncid, v_i2, st, ct, i2); call check(err, 'put int2')
  err = nfmpi_put_vara_int_all(ncid, v_int, st, ct, ib); call check(err, 'put int')
  err = nfmpi_put_vara_real_all(ncid, v_real, st, ct, rb); call check(err, 'put real')
  err = nfmpi_put_vara_double_all(ncid, v_dbl, st, ct, db); call check(err, 'put double')
  err = nfmpi_put_vara_int8_all(ncid, v_i8, st, ct, i8); call check(err, 'put int8')
  err = nfmpi_get_vara_text_all(ncid, v_text, st, ct, tin); call check(err, 'get text')
  err = nfmpi_get_vara_int1_all(ncid, v_i1, st, ct, i1in); call check(err, 'get int1')
  err = nfmpi_get_vara_int2_all(ncid, v_i2, st, ct, i2in); call check(err, 'get int2')
  err = nfmpi_get_vara_int_all(ncid, v_int, st, ct, ibin); call check(err, 'get int')
  err = nfmpi_get_vara_real_all(ncid, v_real, st, ct, rbin); call check(err, 'get real')
  err = nfmpi_get_vara_double_all(ncid, v_dbl, st, ct, dbin); call check(err, 'get double')
  err = nfmpi_get_vara_int8_all(ncid, v_i8, st, ct, i8in); call check(err, 'get int8')
  call truth(tin == tbuf .and. all(i1in == i1) .and. all(i2in == i2) .and. all(ibin == ib) .and. &
             all(rbin == rb) .and. all(dbin == db) .and. all(i8in == i8), 'vara round trip')
  ! conversion on read: int variable read as double and int8
  err = nfmpi_get_vara_double_all(ncid, v_int, st, ct, dbin); call check(err, 'get int as double')
  call truth(all(dbin == dble(ib)), 'int read as double')
  ! out-of-range start and count
  call expect(nfmpi_put_vara_int_all(ncid, v_int, (/nx + 2, ONE/), ct, ib), NF_EINVALCOORDS, 'start')
  call expect(nfmpi_get_vara_int_all(ncid, v_int, st, (/ct(1), 9_MPI_OFFSET_KIND/), ibin), NF_EEDGE, &
              'edge')

  ! --- var, var1, vars, varm independent; the flexible API ---------------------------------
  err = nfmpi_put_var_double_all(ncid, v_sc, 3.5d0); call check(err, 'put_var scalar')
  err = nfmpi_begin_indep_data(ncid); call check(err, 'begin_indep_data')
  if (rank == 0) then
    err = nfmpi_put_var1_int(ncid, v_int, (/ONE, 2_MPI_OFFSET_KIND/), -7); call check(err, 'var1')
    err = nfmpi_put_var1_text(ncid, v_text, (/ONE, ONE/), 'Z'); call check(err, 'var1 text')
  end if
  ! every other x of this rank's row 3, stride 2 (x = first of this rank's pair)
  err = nfmpi_put_vars_real(ncid, v_real, (/st(1), 3_MPI_OFFSET_KIND/), (/ONE, ONE/), &
                            (/2_MPI_OFFSET_KIND, ONE/), (/99.5/)); call check(err, 'vars')
  err = nfmpi_end_indep_data(ncid); call check(err, 'end_indep_data')
  ! varm: a transposed buffer tr(y, x) written into (x, y)
  do j = 1, NY
    do i = 1, NXL
      tr(j, i) = -(rank * 100 + j * 10 + i)
    end do
  end do
  sd = (/ONE, ONE/); im = (/int(NY, MPI_OFFSET_KIND), ONE/)
  err = nfmpi_put_varm_int_all(ncid, v_int, st, ct, sd, im, tr); call check(err, 'varm')
  err = nfmpi_get_vara_int_all(ncid, v_int, st, ct, ibin); call check(err, 'get after varm')
  call truth(all(ibin == transpose(tr)), 'varm transposed')
  ! flexible: real buffer described by MPI_REAL into the double variable
  err = nfmpi_put_vara_all(ncid, v_dbl, st, ct, rb, int(NXL*NY, MPI_OFFSET_KIND), MPI_REAL)
  call check(err, 'put_vara flexible')
  err = nfmpi_get_vara_all(ncid, v_dbl, st, ct, dbin, int(NXL*NY, MPI_OFFSET_KIND), &
                           MPI_DOUBLE_PRECISION); call check(err, 'get_vara flexible')
  call truth(all(dbin == dble(rb)), 'flexible round trip')

  ! --- varn, nonblocking iput/iget, bput ------------------------------------------------------
  ! record variable rec(x, time): two records, each rank its own pair of x, in two requests
  stn(:, 1) = (/st(1), ONE/);     ctn(:, 1) = (/int(NXL, MPI_OFFSET_KIND), ONE/)
  stn(:, 2) = (/st(1), 2_MPI_OFFSET_KIND/); ctn(:, 2) = (/int(NXL, MPI_OFFSET_KIND), ONE/)
  rec = reshape((/(rank * 1000 + i, i = 1, 2 * NXL)/), (/NXL, 2/))
  err = nfmpi_put_varn_int_all(ncid, v_rec, 2, stn, ctn, rec); call check(err, 'put_varn')
  err = nfmpi_get_varn_int_all(ncid, v_rec, 2, stn, ctn, recin); call check(err, 'get_varn')
  call truth(all(recin == rec), 'varn round trip')
  err = nfmpi_iput_vara_int2(ncid, v_i2, st, ct, i2 * 2_2, reqs(1)); call check(err, 'iput')
  err = nfmpi_iput_vara_int8(ncid, v_i8, st, ct, -i8, reqs(2)); call check(err, 'iput8')
  err = nfmpi_buffer_attach(ncid, 4096_MPI_OFFSET_KIND); call check(err, 'buffer_attach')
  err = nfmpi_bput_vara_int1(ncid, v_i1, st, ct, -i1, reqs(3)); call check(err, 'bput')
  err = nfmpi_bput_var1_double(ncid, v_dbl, (/st(1), ONE/), -1.0d0, reqs(4)); call check(err, 'bput1')
  err = nfmpi_inq_nreqs(ncid, ival); call check(err, 'inq_nreqs')
  call say_int('pending requests', ival)
  err = nfmpi_wait_all(ncid, 4, reqs, sts); call check(err, 'wait_all')
  call truth(all(sts(1:4) == NF_NOERR), 'statuses')
  err = nfmpi_inq_buffer_usage(ncid, bsz); call check(err, 'buffer_usage')
  call say_off('buffer usage after wait', bsz)
  err = nfmpi_buffer_detach(ncid); call check(err, 'buffer_detach')
  err = nfmpi_iget_vara_int2(ncid, v_i2, st, ct, i2in, reqs(1)); call check(err, 'iget')
  err = nfmpi_iget_vara_int8(ncid, v_i8, st, ct, i8in, reqs(2)); call check(err, 'iget8')
  err = nfmpi_iget_vara_int1(ncid, v_i1, st, ct, i1in, reqs(3)); call check(err, 'iget1')
  err = nfmpi_iget_var1_double(ncid, v_dbl, (/st(1), ONE/), dsc, reqs(4)); call check(err, 'iget1d')
  err = nfmpi_wait_all(ncid, 4, reqs, sts); call check(err, 'wait_all get')
  call truth(all(i2in == i2 * 2_2) .and. all(i8in == -i8) .and. all(i1in == -i1) .and. dsc == -1.0d0, &
             'nonblocking round trip')
  err = nfmpi_begin_indep_data(ncid); call check(err, 'begin_indep_data')
  ! record 3 whole: one element per request
  err = nfmpi_iput_var1_int(ncid, v_rec, (/st(1), 3_MPI_OFFSET_KIND/), 5, reqs(1)); call check(err, 'iput1')
  err = nfmpi_iput_var1_int(ncid, v_rec, (/st(1) + 1, 3_MPI_OFFSET_KIND/), 6, reqs(2))
  call check(err, 'iput1')
  err = nfmpi_wait(ncid, 2, reqs, sts); call check(err, 'wait')
  err = nfmpi_end_indep_data(ncid); call check(err, 'end_indep_data')
  reqs(1) = 12345
  call say_int('wait_all on a bad request', nfmpi_wait_all(ncid, 1, reqs, sts))
  call say_int('status of a bad request', sts(1))

  ! more request kinds: iput_varm (transposed), bput_vars (strided), flexible varn and iget
  err = nfmpi_buffer_attach(ncid, 1024_MPI_OFFSET_KIND); call check(err, 'buffer_attach')
  rb = -rb
  err = nfmpi_iput_varm_real(ncid, v_real, st, ct, sd, (/ONE, int(NXL, MPI_OFFSET_KIND)/), rb, reqs(1))
  call check(err, 'iput_varm')
  err = nfmpi_bput_vars_int2(ncid, v_i2, st, (/ONE, 2_MPI_OFFSET_KIND/), (/ONE, 2_MPI_OFFSET_KIND/), &
                             (/7_2, 8_2/), reqs(2)); call check(err, 'bput_vars')
  err = nfmpi_iput_var1_text(ncid, v_text, (/st(1) + 1, 2_MPI_OFFSET_KIND/), 'Q', reqs(3))
  call check(err, 'iput_var1_text')
  err = nfmpi_wait_all(ncid, 3, reqs, sts); call check(err, 'wait_all 2')
  err = nfmpi_buffer_detach(ncid); call check(err, 'buffer_detach 2')
  err = nfmpi_get_varn_all(ncid, v_rec, 2, stn, ctn, recin, int(2 * NXL, MPI_OFFSET_KIND), MPI_INTEGER)
  call check(err, 'get_varn flexible')
  call truth(all(recin == rec), 'flexible varn')
  err = nfmpi_iget_vars_real(ncid, v_real, st, ct, sd, rbin, reqs(1)); call check(err, 'iget_vars')
  err = nfmpi_iget_varn_int(ncid, v_rec, 2, stn, ctn, recin, reqs(2)); call check(err, 'iget_varn')
  err = nfmpi_wait_all(ncid, 2, reqs, sts); call check(err, 'wait_all 3')
  call truth(all(rbin == rb) .and. all(recin == rec), 'iget_vars/varn')
  err = nfmpi_get_var1_int2_all(ncid, v_i2, (/st(1), 3_MPI_OFFSET_KIND/), i2in(1, 1))
  call check(err, 'get_var1_int2')
  call say_int('bput_vars value', int(i2in(1, 1)))
  err = nfmpi_get_var1_int8_all(ncid, v_i8, st, i8in(1, 1)); call check(err, 'get_var1_int8')
  err = nfmpi_get_var1_real_all(ncid, v_real, st, rbin(1, 1)); call check(err, 'get_var1_real')
  err = nfmpi_get_var1_int1_all(ncid, v_i1, st, i1in(1, 1)); call check(err, 'get_var1_int1')
  call truth(i8in(1, 1) == -i8(1, 1) .and. rbin(1, 1) == rb(1, 1) .and. i1in(1, 1) == -i1(1, 1), &
             'get_var1')

  ! --- inquiry ----------------------------------------------------------------------------
  err = nfmpi_inq(ncid, nd, nv, na, ul); call check(err, 'inq')
  call say_int('ndims', nd); call say_int('nvars', nv); call say_int('ngatts', na)
  call say_int('unlimdim', ul)
  err = nfmpi_inq_unlimdim(ncid, ul); call check(err, 'inq_unlimdim'); call say_int('unlimdim', ul)
  err = nfmpi_inq_format(ncid, fmt); call check(err, 'inq_format'); call say_int('format', fmt)
  err = nfmpi_inq_var(ncid, v_rec, nm, xt, ndv, ids, nav); call check(err, 'inq_var')
  call say_str('rec name', nm); call say_int('rec type', xt); call say_int('rec ndims', ndv)
  call say_int('rec dimid 1', ids(1)); call say_int('rec dimid 2', ids(2))
  err = nfmpi_inq_vardimid(ncid, v_int, ids); call check(err, 'inq_vardimid')
  call say_int('v_int dimid 1', ids(1)); call say_int('v_int dimid 2', ids(2))
  err = nfmpi_inq_dim(ncid, dt, nm, ln); call check(err, 'inq_dim')
  call say_str('dim name', nm); call say_off('time length', ln)
  err = nfmpi_inq_dimid(ncid, 'y', ival); call check(err, 'inq_dimid'); call say_int('y id', ival)
  err = nfmpi_inq_varid(ncid, 'v_int8', ival); call check(err, 'inq_varid'); call say_int('v_int8 id', ival)
  err = nfmpi_inq_att(ncid, v_i8, 'a8', xt, ln); call check(err, 'inq_att')
  call say_int('a8 type', xt); call say_off('a8 len', ln)
  err = nfmpi_inq_attname(ncid, v_int, 2, nm); call check(err, 'inq_attname'); call say_str('att 2', nm)
  err = nfmpi_inq_attid(ncid, v_real, 'conv', attnum); call check(err, 'inq_attid')
  call say_int('conv attnum', attnum)
  err = nfmpi_get_att_text(ncid, NF_GLOBAL, 'title', nm); call check(err, 'get_att_text')
  call say_str('title', nm)
  err = nfmpi_get_att_int8(ncid, v_i8, 'a8', i8a); call check(err, 'get_att_int8')
  call truth(i8a(2) == 2_8**40, 'int8 attribute')
  err = nfmpi_get_att_double(ncid, v_real, 'conv', dsc); call check(err, 'get_att conv')
  call say_dbl('conv as double', dsc)
  err = nfmpi_get_att_real(ncid, v_real, 'ar', ar); call check(err, 'get_att_real')
  call say_dbl('ar(2)', dble(ar(2)))
  err = nfmpi_inq_varoffset(ncid, v_i8, ln); call check(err, 'inq_varoffset')
  call say_off('v_int8 offset', ln)
  err = nfmpi_inq_header_size(ncid, ln); call check(err, 'inq_header_size')
  call say_off('header size', ln)
  err = nfmpi_inq_recsize(ncid, ln); call check(err, 'inq_recsize'); call say_off('recsize', ln)
  err = nfmpi_inq_num_rec_vars(ncid, ival); call check(err, 'inq_num_rec_vars')
  call say_int('rec vars', ival)
  call expect(nfmpi_inq_varid(ncid, 'nope', ival), NF_ENOTVAR, 'inq_varid nope')
  call expect(nfmpi_inq_varname(ncid, 77, nm), NF_ENOTVAR, 'inq_varname 77')
  call expect(nfmpi_inq_dimlen(ncid, 9, ln), NF_EBADDIM, 'inq_dimlen 9')
  call expect(nfmpi_get_att_int(ncid, NF_GLOBAL, 'title', ival), NF_ECHAR, 'get text as int')
  err = nfmpi_close(ncid); call check(err, 'close')

  ! --- reopen: metadata changes in redef, sums of the data ----------------------------------
  err = nfmpi_open(MPI_COMM_WORLD, trim(dir)//'/f77_api.nc', NF_WRITE, MPI_INFO_NULL, ncid)
  call check(err, 'open')
  err = nfmpi_redef(ncid); call check(err, 'redef')
  err = nfmpi_rename_var(ncid, v_sc, 'scal'); call check(err, 'rename_var')
  err = nfmpi_rename_dim(ncid, dy, 'yy'); call check(err, 'rename_dim')
  err = nfmpi_rename_att(ncid, NF_GLOBAL, 'title', 'name'); call check(err, 'rename_att')
  err = nfmpi_copy_att(ncid, v_i8, 'a8', ncid, NF_GLOBAL); call check(err, 'copy_att')
  err = nfmpi_del_att(ncid, v_real, 'conv'); call check(err, 'del_att')
  err = nfmpi_enddef(ncid); call check(err, 'enddef 2')
  err = nfmpi_get_var_double_all(ncid, v_sc, dsc1); call check(err, 'get scalar')
  call say_dbl('scalar', dsc1(1))
  call sum_var(v_i1, 'sum v_int1'); call sum_var(v_i2, 'sum v_int2')
  call sum_var(v_int, 'sum v_int'); call sum_var(v_real, 'sum v_real')
  call sum_var(v_dbl, 'sum v_double'); call sum_var(v_i8, 'sum v_int8')
  call sum_var(v_rec, 'sum rec')
  err = nfmpi_inq_dimlen(ncid, dt, ln); call check(err, 'numrecs'); call say_off('numrecs', ln)
  err = nfmpi_get_var1_text_all(ncid, v_text, (/ONE, ONE/), nm(1:1)); call check(err, 'get var1 text')
  call say_str('text(1,1)', nm(1:1))
  err = nfmpi_close(ncid); call check(err, 'close 2')

  ! --- file-level calls: fill modes, _enddef, sync/flush, path, info, format, delete -------
  err = nfmpi_create(MPI_COMM_WORLD, trim(dir)//'/f77_misc.nc', NF_CLOBBER, MPI_INFO_NULL, ncid)
  call check(err, 'create misc')
  err = nfmpi_set_fill(ncid, NF_FILL, ival); call check(err, 'set_fill'); call say_int('old fill mode', ival)
  err = nfmpi_def_dim(ncid, 't', NFMPI_UNLIMITED, dt); call check(err, 'def_dim t')
  err = nfmpi_def_var(ncid, 'r', NF_SHORT, 1, (/dt/), v_rec); call check(err, 'def_var r')
  err = nfmpi_def_var(ncid, 'g', NF_FLOAT, 1, (/dt/), v_real); call check(err, 'def_var g')
  err = nfmpi__enddef(ncid, 0_MPI_OFFSET_KIND, 64_MPI_OFFSET_KIND, 0_MPI_OFFSET_KIND, 8_MPI_OFFSET_KIND)
  call check(err, '_enddef')
  err = nfmpi_fill_var_rec(ncid, v_rec, 2_MPI_OFFSET_KIND); call check(err, 'fill_var_rec')
  err = nfmpi_fill_var_rec(ncid, v_real, 2_MPI_OFFSET_KIND); call check(err, 'fill_var_rec g')
  err = nfmpi_sync(ncid); call check(err, 'sync')
  err = nfmpi_flush(ncid); call check(err, 'flush')
  err = nfmpi_inq_varoffset(ncid, v_real, ln); call check(err, 'varoffset g'); call say_off('g offset', ln)
  nm = repeat('#', len(nm))
  err = nfmpi_inq_path(ncid, ival, nm); call check(err, 'inq_path')
  call truth(index(nm, 'f77_misc.nc') == ival - 10, 'inq_path')
  call say_int('after path', iachar(nm(ival+1:ival+1)))
  call say_int('after path +1', iachar(nm(ival+2:ival+2)))
  err = nfmpi_inq_file_info(ncid, i); call check(err, 'inq_file_info')
  call MPI_Info_free(i, ierr)
  err = nfmpi_inq_default_format(fmt); call check(err, 'inq_default_format'); call say_int('default', fmt)
  err = nfmpi_close(ncid); call check(err, 'close misc')
  err = nfmpi_inq_file_format(nm(1:ival), fmt); call check(err, 'inq_file_format')
  call say_int('file format', fmt)
  ! delete: a file of its own (f77_misc.nc stays for the byte comparison)
  err = nfmpi_create(MPI_COMM_WORLD, nm(1:ival-11)//'f77_gone.nc', NF_CLOBBER, MPI_INFO_NULL, ncid)
  call check(err, 'create gone')
  err = nfmpi_close(ncid); call check(err, 'close gone')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    err = nfmpi_delete(nm(1:ival-11)//'f77_gone.nc', MPI_INFO_NULL); call check(err, 'delete')
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call say_int('open deleted', nfmpi_open(MPI_COMM_WORLD, nm(1:ival-11)//'f77_gone.nc', NF_NOWRITE, &
                                          MPI_INFO_NULL, ncid))

  if (rank == 0) then
    write(*, '(A)') trim(nfmpi_strerror(NF_EBADID))
    write(*, '(A)') trim(nfmpi_strerror(NF_EINVALCOORDS))
    write(*, '(A,L1)') 'issyserr ', nfmpi_issyserr(NF_EBADID)
    ! netCDF-2 compatibility names of the include (values compared with PnetCDF's by the output)
    write(*, '(A,9(1X,I0))') 'netcdf2', ncbyte, ncdouble, ncrdwr, ncclob, ncnoclob, ncglobal, &
      maxvdims, ncenotvr, ncentool
    write(*, '(A,3(1X,I0),2(1X,ES14.7))') 'netcdf2 fill', filbyte, filshort, fillong, filfloat, fildoub
  end if
  call MPI_Allreduce(MPI_IN_PLACE, nerrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(A,I0)') 'errors: ', nerrs
  call MPI_Finalize(ierr)
  if (nerrs /= 0) stop 1

contains

  subroutine check(e, what)
    integer, intent(in) :: e
    character(len=*), intent(in) :: what
    if (e /= NF_NOERR) then
      write(*, '(A,I0,A,A,A,I0,A,A)') 'rank ', rank, ': ', what, ': error ', e, ' ', &
        trim(nfmpi_strerror(e))
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

  subroutine say_off(what, v)
    character(len=*), intent(in) :: what
    integer(kind=MPI_OFFSET_KIND), intent(in) :: v
    if (rank == 0) write(*, '(A,A,I0)') what, ' = ', v
  end subroutine say_off

  subroutine say_dbl(what, v)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: v
    if (rank == 0) write(*, '(A,A,ES24.16)') what, ' = ', v
  end subroutine say_dbl

  subroutine say_str(what, v)
    character(len=*), intent(in) :: what, v
    if (rank == 0) write(*, '(A,A,A,A)') what, ' = "', trim(v), '"'
  end subroutine say_str

  ! The sum of a whole variable read as double precision by every rank (all of it).
  subroutine sum_var(varid, what)
    integer, intent(in) :: varid
    character(len=*), intent(in) :: what
    double precision, allocatable :: all(:)
    integer(kind=MPI_OFFSET_KIND) :: n, len1
    integer :: k, nds, dimids(2), e
    e = nfmpi_inq_varndims(ncid, varid, nds); call check(e, 'varndims')
    e = nfmpi_inq_vardimid(ncid, varid, dimids); call check(e, 'vardimid')
    n = 1
    do k = 1, nds
      e = nfmpi_inq_dimlen(ncid, dimids(k), len1); call check(e, 'dimlen')
      n = n * len1
    end do
    allocate(all(n))
    e = nfmpi_get_var_double_all(ncid, varid, all); call check(e, what)
    call say_dbl(what, sum(all))
  end subroutine sum_var
end program f77_api
