# Installation: libraries, headers, the `exacdf` tool (tools/), a pkg-config file and a CMake
# package config. Both are relocatable, so `cmake --install build --prefix DIR` works for any DIR.
include(CMakePackageConfigHelpers)

install(TARGETS exacdf exacdf_static EXPORT exacdfTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/pnetcdf.h include/exacdf.h include/exacdf_nc_constants.h
  include/exacdf_relation.h include/exacdf_query.h include/exacdf_connector.h
  include/exacdf_cache.h include/exacdf_swmr.h include/exacdf_commit.h include/exacdf_async.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# --- pkg-config: exacdf.pc -------------------------------------------------------------------
# prefix relative to ${pcfiledir} (= <prefix>/<libdir>/pkgconfig).
set(_exacdf_pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  file(RELATIVE_PATH EXACDF_PC_RELATIVE_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH EXACDF_PC_RELATIVE_PREFIX "/root/${_exacdf_pcdir}" "/root")
  string(REGEX REPLACE "/$" "" EXACDF_PC_RELATIVE_PREFIX "${EXACDF_PC_RELATIVE_PREFIX}")
endif()
# The MPI pkg-config module matching the MPI CMake found (Open MPI: ompi-c, MPICH: mpich).
set(EXACDF_PC_REQUIRES "")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  set(_exacdf_mpi_candidates)
  if(MPI_C_LIBRARIES MATCHES "openmpi")
    list(APPEND _exacdf_mpi_candidates ompi-c)
  elseif(MPI_C_LIBRARIES MATCHES "mpich")
    list(APPEND _exacdf_mpi_candidates mpich)
  endif()
  list(APPEND _exacdf_mpi_candidates mpi-c ompi-c mpich)
  foreach(_m IN LISTS _exacdf_mpi_candidates)
    execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --exists ${_m} RESULT_VARIABLE _rc)
    if(_rc EQUAL 0)
      set(EXACDF_PC_REQUIRES ${_m})
      break()
    endif()
  endforeach()
endif()
# A static link needs the C++ runtime beyond libexacdf.a: the C++ compiler's implicit link
# libraries that a C link does not bring (libstdc++ with g++ and clang on Linux).
set(_exacdf_cxx_runtime ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
if(CMAKE_C_IMPLICIT_LINK_LIBRARIES)
  list(REMOVE_ITEM _exacdf_cxx_runtime ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
endif()
list(REMOVE_DUPLICATES _exacdf_cxx_runtime)
foreach(_lib IN LISTS _exacdf_cxx_runtime)
  target_link_libraries(exacdf_static INTERFACE "$<LINK_ONLY:${_lib}>")
endforeach()
list(TRANSFORM _exacdf_cxx_runtime PREPEND "-l" OUTPUT_VARIABLE _exacdf_cxx_runtime_flags)
# The query indexes' CRoaring (a shared system library).
target_link_libraries(exacdf_static INTERFACE "$<INSTALL_INTERFACE:$<LINK_ONLY:roaring>>")
list(PREPEND _exacdf_cxx_runtime_flags -lroaring)
list(JOIN _exacdf_cxx_runtime_flags " " EXACDF_PC_LIBS_PRIVATE)
configure_file(${PROJECT_SOURCE_DIR}/cmake/exacdf.pc.in ${PROJECT_BINARY_DIR}/exacdf.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/exacdf.pc DESTINATION ${_exacdf_pcdir})

# --- CMake package: find_package(exacdf) -> exacdf::exacdf, exacdf::exacdf_static ------------
set(EXACDF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/exacdf)
set(EXACDF_MPI_VERSION_REQUIRED 3.1)
install(EXPORT exacdfTargets NAMESPACE exacdf:: DESTINATION ${EXACDF_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/exacdfConfig.cmake.in
  ${PROJECT_BINARY_DIR}/exacdfConfig.cmake INSTALL_DESTINATION ${EXACDF_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/exacdfConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/exacdfConfig.cmake ${PROJECT_BINARY_DIR}/exacdfConfigVersion.cmake
  DESTINATION ${EXACDF_CMAKE_DIR})

# --- Fortran APIs (fortran/CMakeLists.txt): exacdf-fortran.pc, exacdf::fortran ---------------
if(TARGET exacdf_fortran)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/exacdf-fortran.pc.in
    ${PROJECT_BINARY_DIR}/exacdf-fortran.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/exacdf-fortran.pc DESTINATION ${_exacdf_pcdir})
endif()
