# libjpeg-turbo for the JPEG encoder and lossless transforms (zm/jpeg.h), linked STATICALLY so
# zmgate.node needs no libturbojpeg at run time (ldd: glibc, libstdc++, libgcc_s, libm only).
#
# The library is built once from Debian's source package by native/deps/build-libjpeg-turbo.sh
# (Debian's own libturbojpeg.a is PIE and cannot go into a shared object) and cached OUTSIDE
# build/, so `rm -rf build` does not rebuild it: $ZM_DEPS_DIR, else $XDG_CACHE_HOME/zmgate,
# else ~/.cache/zmgate. Defines the imported target zm::turbojpeg.

# One cache per target architecture (CMAKE_SYSTEM_PROCESSOR: x86_64, aarch64 when cross-compiling).
set(ZM_LIBJPEG_TURBO_KEY "libjpeg-turbo-pic-1-${CMAKE_SYSTEM_PROCESSOR}")  # bump the number to force a rebuild with other flags
if(DEFINED ENV{ZM_DEPS_DIR} AND NOT "$ENV{ZM_DEPS_DIR}" STREQUAL "")
  set(_zm_deps "$ENV{ZM_DEPS_DIR}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_zm_deps "$ENV{XDG_CACHE_HOME}/zmgate")
else()
  set(_zm_deps "$ENV{HOME}/.cache/zmgate")
endif()
set(ZM_LIBJPEG_TURBO_PREFIX "${_zm_deps}/${ZM_LIBJPEG_TURBO_KEY}" CACHE PATH "PIC static libjpeg-turbo (lib/libturbojpeg.a, include/turbojpeg.h)")

if(NOT EXISTS "${ZM_LIBJPEG_TURBO_PREFIX}/lib/libturbojpeg.a")
  message(STATUS "zmgate: building libjpeg-turbo into ${ZM_LIBJPEG_TURBO_PREFIX} (once)")
  execute_process(
    COMMAND sh "${CMAKE_CURRENT_LIST_DIR}/../deps/build-libjpeg-turbo.sh" "${ZM_LIBJPEG_TURBO_PREFIX}" ${CMAKE_TOOLCHAIN_FILE}
    RESULT_VARIABLE _zm_jt_result)
  if(NOT _zm_jt_result EQUAL 0)
    message(FATAL_ERROR "zmgate: could not build libjpeg-turbo (see the message above)")
  endif()
endif()

add_library(zm::turbojpeg STATIC IMPORTED)
set_target_properties(zm::turbojpeg PROPERTIES
  IMPORTED_LOCATION "${ZM_LIBJPEG_TURBO_PREFIX}/lib/libturbojpeg.a"
  INTERFACE_INCLUDE_DIRECTORIES "${ZM_LIBJPEG_TURBO_PREFIX}/include")
