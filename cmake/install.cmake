# Installation: libraries, headers, pkg-config file, CMake package config.
install(TARGETS exacdf exacdf_static EXPORT exacdfTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/pnetcdf.h include/exacdf.h include/exacdf_nc_constants.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
