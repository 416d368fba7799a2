/*
 * exacdf_nc_constants.h -- the constants of the netCDF/PnetCDF API: external
 * types, fill values, limits, modes, formats and NC_* error codes, with the
 * values PnetCDF documents. Needs no MPI, so the pure codecs of exacdf use it
 * too. Included by pnetcdf.h; programs need not include it themselves.
 */
#ifndef EXACDF_NC_CONSTANTS_H
#define EXACDF_NC_CONSTANTS_H

#ifndef _NETCDF_
/* External data types. */
typedef int nc_type;

#define NC_NAT 0
#define NC_BYTE 1
#define NC_CHAR 2
#define NC_SHORT 3
#define NC_INT 4
#define NC_LONG NC_INT
#define NC_FLOAT 5
#define NC_DOUBLE 6
#define NC_UBYTE 7
#define NC_USHORT 8
#define NC_UINT 9
#define NC_INT64 10
#define NC_UINT64 11
#define NC_STRING 12
#define NC_MAX_ATOMIC_TYPE NC_STRING
#define NC_VLEN 13
#define NC_OPAQUE 14
#define NC_ENUM 15
#define NC_COMPOUND 16
#define NC_FIRSTUSERTYPEID 32

/* Default fill values. */
#define NC_FILL_BYTE ((signed char)-127)
#define NC_FILL_CHAR ((char)0)
#define NC_FILL_SHORT ((short)-32767)
#define NC_FILL_INT (-2147483647)
#define NC_FILL_FLOAT (9.9692099683868690e+36f)
#define NC_FILL_DOUBLE (9.9692099683868690e+36)
#define NC_FILL_UBYTE (255)
#define NC_FILL_USHORT (65535)
#define NC_FILL_UINT (4294967295U)
#define NC_FILL_INT64 ((long long)-9223372036854775806LL)
#define NC_FILL_UINT64 ((unsigned long long)18446744073709551614ULL)
#define NC_FILL_STRING ((char *)"")

/* Limits of the external types. */
#define NC_MAX_BYTE 127
#define NC_MIN_BYTE (-NC_MAX_BYTE - 1)
#define NC_MAX_CHAR 255
#define NC_MAX_SHORT 32767
#define NC_MIN_SHORT (-NC_MAX_SHORT - 1)
#define NC_MAX_INT 2147483647
#define NC_MIN_INT (-NC_MAX_INT - 1)
#define NC_MAX_FLOAT 3.402823466e+38f
#define NC_MIN_FLOAT (-NC_MAX_FLOAT)
#define NC_MAX_DOUBLE 1.7976931348623157e+308
#define NC_MIN_DOUBLE (-NC_MAX_DOUBLE)
#define NC_MAX_UBYTE NC_MAX_CHAR
#define NC_MAX_USHORT 65535U
#define NC_MAX_UINT 4294967295U
#define NC_MAX_INT64 (9223372036854775807LL)
#define NC_MIN_INT64 (-9223372036854775807LL - 1LL)
#define NC_MAX_UINT64 (18446744073709551615ULL)

#define _FillValue "_FillValue"
#define NC_FILL 0
#define NC_NOFILL 0x100

/* Create and open modes. */
#define NC_NOWRITE 0x0000
#define NC_WRITE 0x0001
#define NC_CLOBBER 0x0000
#define NC_NOCLOBBER 0x0004
#define NC_DISKLESS 0x0008
#define NC_MMAP 0x0010
#define NC_64BIT_DATA 0x0020
#define NC_CDF5 NC_64BIT_DATA
#define NC_UDF0 0x0040
#define NC_UDF1 0x0080
#define NC_CLASSIC_MODEL 0x0100
#define NC_64BIT_OFFSET 0x0200
#define NC_LOCK 0x0400
#define NC_SHARE 0x0800
#define NC_NETCDF4 0x1000
#define NC_MPIIO 0x2000
#define NC_MPIPOSIX NC_MPIIO
#define NC_PNETCDF (NC_MPIIO)
#define NC_PERSIST 0x4000
#define NC_INMEMORY 0x8000
#define NC_NOATTCREORD 0x20000

#define NC_MAX_MAGIC_NUMBER_LEN 8

/* File formats. */
#define NC_FORMAT_CLASSIC (1)
#define NC_FORMAT_64BIT_OFFSET (2)
#define NC_FORMAT_64BIT (NC_FORMAT_64BIT_OFFSET)
#define NC_FORMAT_NETCDF4 (3)
#define NC_FORMAT_NETCDF4_CLASSIC (4)
#define NC_FORMAT_64BIT_DATA (5)

#define NC_FORMATX_NC3 (1)
#define NC_FORMATX_NC_HDF5 (2)
#define NC_FORMATX_NC4 NC_FORMATX_NC_HDF5
#define NC_FORMATX_NC_HDF4 (3)
#define NC_FORMATX_PNETCDF (4)
#define NC_FORMATX_UNDEFINED (0)

#define NC_SIZEHINT_DEFAULT 0
#define NC_ALIGN_CHUNK ((size_t)(-1))
#define NC_UNLIMITED 0L
#define NC_GLOBAL -1

#define NC_MAX_DIMS 2147483647
#define NC_MAX_ATTRS 2147483647
#define NC_MAX_VARS 2147483647
#define NC_MAX_NAME 256
#define NC_MAX_VAR_DIMS 2147483647

#define NC_ISSYSERR(err) ((err) > 0)

/* Error codes shared with netCDF. */
#define NC_NOERR 0
#define NC2_ERR (-1)
#define NC_EBADID (-33)
#define NC_ENFILE (-34)
#define NC_EEXIST (-35)
#define NC_EINVAL (-36)
#define NC_EPERM (-37)
#define NC_ENOTINDEFINE (-38)
#define NC_EINDEFINE (-39)
#define NC_EINVALCOORDS (-40)
#define NC_EMAXDIMS (-41)
#define NC_ENAMEINUSE (-42)
#define NC_ENOTATT (-43)
#define NC_EMAXATTS (-44)
#define NC_EBADTYPE (-45)
#define NC_EBADDIM (-46)
#define NC_EUNLIMPOS (-47)
#define NC_EMAXVARS (-48)
#define NC_ENOTVAR (-49)
#define NC_EGLOBAL (-50)
#define NC_ENOTNC (-51)
#define NC_ESTS (-52)
#define NC_EMAXNAME (-53)
#define NC_EUNLIMIT (-54)
#define NC_ENORECVARS (-55)
#define NC_ECHAR (-56)
#define NC_EEDGE (-57)
#define NC_ESTRIDE (-58)
#define NC_EBADNAME (-59)
#define NC_ERANGE (-60)
#define NC_ENOMEM (-61)
#define NC_EVARSIZE (-62)
#define NC_EDIMSIZE (-63)
#define NC_ETRUNC (-64)
#define NC_EAXISTYPE (-65)
#define NC_EDAP (-66)
#define NC_ECURL (-67)
#define NC_EIO (-68)
#define NC_ENODATA (-69)
#define NC_EDAPSVC (-70)
#define NC_EDAS (-71)
#define NC_EDDS (-72)
#define NC_EDATADDS (-73)
#define NC_EDAPURL (-74)
#define NC_EDAPCONSTRAINT (-75)
#define NC_ETRANSLATION (-76)
#define NC_EACCESS (-77)
#define NC_EAUTH (-78)
#define NC_ENOTFOUND (-90)
#define NC_ECANTREMOVE (-91)
#define NC_EINTERNAL (-92)
#define NC_EPNETCDF (-93)
#define NC4_FIRST_ERROR (-100)
#define NC_EHDFERR (-101)
#define NC_ECANTREAD (-102)
#define NC_ECANTWRITE (-103)
#define NC_ECANTCREATE (-104)
#define NC_EFILEMETA (-105)
#define NC_EDIMMETA (-106)
#define NC_EATTMETA (-107)
#define NC_EVARMETA (-108)
#define NC_ENOCOMPOUND (-109)
#define NC_EATTEXISTS (-110)
#define NC_ENOTNC4 (-111)
#define NC_ESTRICTNC3 (-112)
#define NC_ENOTNC3 (-113)
#define NC_ENOPAR (-114)
#define NC_EPARINIT (-115)
#define NC_EBADGRPID (-116)
#define NC_EBADTYPID (-117)
#define NC_ETYPDEFINED (-118)
#define NC_EBADFIELD (-119)
#define NC_EBADCLASS (-120)
#define NC_EMAPTYPE (-121)
#define NC_ELATEFILL (-122)
#define NC_ELATEDEF (-123)
#define NC_EDIMSCALE (-124)
#define NC_ENOGRP (-125)
#define NC_ESTORAGE (-126)
#define NC_EBADCHUNK (-127)
#define NC_ENOTBUILT (-128)
#define NC_EDISKLESS (-129)
#define NC_ECANTEXTEND (-130)
#define NC_EMPI (-131)
#define NC_EFILTER (-132)
#define NC_ERCFILE (-133)
#define NC_ENULLPAD (-134)
#define NC_EINMEMORY (-135)
#define NC_ENOFILTER (-136)
#define NC4_LAST_ERROR (-142)
#endif /* _NETCDF_ */

/* Nonblocking request ids. */
#define NC_REQ_NULL -1
#define NC_REQ_ALL -1
#define NC_GET_REQ_ALL -2
#define NC_PUT_REQ_ALL -3

#define NC_MAX_NFILES 1024
#define NC_FORMAT_UNKNOWN -1
#define NC_32BIT 0x1000000
#define NC_FORMAT_CDF2 2
#define NC_FORMAT_CDF5 5
#define NC_BP 0x10000
#define NC_FORMAT_BP 6

/* Error codes specific to PnetCDF. */
#define NC_ESMALL (-201)
#define NC_ENOTINDEP (-202)
#define NC_EINDEP (-203)
#define NC_EFILE (-204)
#define NC_EREAD (-205)
#define NC_EWRITE (-206)
#define NC_EOFILE (-207)
#define NC_EMULTITYPES (-208)
#define NC_EIOMISMATCH (-209)
#define NC_ENEGATIVECNT (-210)
#define NC_EUNSPTETYPE (-211)
#define NC_EINVAL_REQUEST (-212)
#define NC_EAINT_TOO_SMALL (-213)
#define NC_ENOTSUPPORT (-214)
#define NC_ENULLBUF (-215)
#define NC_EPREVATTACHBUF (-216)
#define NC_ENULLABUF (-217)
#define NC_EPENDINGBPUT (-218)
#define NC_EINSUFFBUF (-219)
#define NC_ENOENT (-220)
#define NC_EINTOVERFLOW (-221)
#define NC_ENOTENABLED (-222)
#define NC_EBAD_FILE (-223)
#define NC_ENO_SPACE (-224)
#define NC_EQUOTA (-225)
#define NC_ENULLSTART (-226)
#define NC_ENULLCOUNT (-227)
#define NC_EINVAL_CMODE (-228)
#define NC_ETYPESIZE (-229)
#define NC_ETYPE_MISMATCH (-230)
#define NC_ETYPESIZE_MISMATCH (-231)
#define NC_ESTRICTCDF2 (-232)
#define NC_ENOTRECVAR (-233)
#define NC_ENOTFILL (-234)
#define NC_EINVAL_OMODE (-235)
#define NC_EPENDING (-236)
#define NC_EMAX_REQ (-237)
#define NC_EBADLOG (-238)
#define NC_EFLUSHED (-239)
#define NC_EADIOS (-240)

/* Inconsistent arguments to collective define calls (safe mode). */
#define NC_EMULTIDEFINE (-250)
#define NC_EMULTIDEFINE_OMODE (-251)
#define NC_EMULTIDEFINE_DIM_NUM (-252)
#define NC_EMULTIDEFINE_DIM_SIZE (-253)
#define NC_EMULTIDEFINE_DIM_NAME (-254)
#define NC_EMULTIDEFINE_VAR_NUM (-255)
#define NC_EMULTIDEFINE_VAR_NAME (-256)
#define NC_EMULTIDEFINE_VAR_NDIMS (-257)
#define NC_EMULTIDEFINE_VAR_DIMIDS (-258)
#define NC_EMULTIDEFINE_VAR_TYPE (-259)
#define NC_EMULTIDEFINE_VAR_LEN (-260)
#define NC_EMULTIDEFINE_NUMRECS (-261)
#define NC_EMULTIDEFINE_VAR_BEGIN (-262)
#define NC_EMULTIDEFINE_ATTR_NUM (-263)
#define NC_EMULTIDEFINE_ATTR_SIZE (-264)
#define NC_EMULTIDEFINE_ATTR_NAME (-265)
#define NC_EMULTIDEFINE_ATTR_TYPE (-266)
#define NC_EMULTIDEFINE_ATTR_LEN (-267)
#define NC_EMULTIDEFINE_ATTR_VAL (-268)
#define NC_EMULTIDEFINE_FNC_ARGS (-269)
#define NC_EMULTIDEFINE_FILL_MODE (-270)
#define NC_EMULTIDEFINE_VAR_FILL_MODE (-271)
#define NC_EMULTIDEFINE_VAR_FILL_VALUE (-272)
#define NC_EMULTIDEFINE_CMODE (-273)
#define NC_EMULTIDEFINE_FIRST NC_EMULTIDEFINE
#define NC_EMULTIDEFINE_LAST NC_EMULTIDEFINE_CMODE
#define NC_ECMODE NC_EMULTIDEFINE_OMODE
#define NC_EDIMS_NELEMS_MULTIDEFINE NC_EMULTIDEFINE_DIM_NUM
#define NC_EDIMS_SIZE_MULTIDEFINE NC_EMULTIDEFINE_DIM_SIZE
#define NC_EDIMS_NAME_MULTIDEFINE NC_EMULTIDEFINE_DIM_NAME
#define NC_EVARS_NELEMS_MULTIDEFINE NC_EMULTIDEFINE_VAR_NUM
#define NC_EVARS_NAME_MULTIDEFINE NC_EMULTIDEFINE_VAR_NAME
#define NC_EVARS_NDIMS_MULTIDEFINE NC_EMULTIDEFINE_VAR_NDIMS
#define NC_EVARS_DIMIDS_MULTIDEFINE NC_EMULTIDEFINE_VAR_DIMIDS
#define NC_EVARS_TYPE_MULTIDEFINE NC_EMULTIDEFINE_VAR_TYPE
#define NC_EVARS_LEN_MULTIDEFINE NC_EMULTIDEFINE_VAR_LEN
#define NC_ENUMRECS_MULTIDEFINE NC_EMULTIDEFINE_NUMRECS
#define NC_EVARS_BEGIN_MULTIDEFINE NC_EMULTIDEFINE_VAR_BEGIN

/* The memory types of the typed API: (api name, C type). This one table
 * generates every typed prototype here and every typed entry point in the
 * library; _text (char) is handled apart because it takes no xtype. */
#define EXACDF_FOR_EACH_MEMTYPE(X) \
  X(schar, signed char)            \
  X(uchar, unsigned char)          \
  X(ubyte, unsigned char)          \
  X(short, short)                  \
  X(ushort, unsigned short)        \
  X(int, int)                      \
  X(uint, unsigned int)            \
  X(long, long)                    \
  X(float, float)                  \
  X(double, double)                \
  X(longlong, long long)           \
  X(ulonglong, unsigned long long)

#endif /* EXACDF_NC_CONSTANTS_H */
