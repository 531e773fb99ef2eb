# Cross-compiling zmgate.node (and its static libjpeg-turbo) for linux-arm64 on an x86-64 host,
# with Debian's cross toolchain: apt-get install -y g++-aarch64-linux-gnu libc6-dev-arm64-cross.
# Picked automatically by CMakeLists.txt when cmake-js is asked for --arch arm64 on another host
# (scripts/prebuild-arm64.sh); also passed to libjpeg-turbo's own build (native/cmake/libjpeg-turbo.cmake).

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ZM_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ZM_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ZM_CROSS_TRIPLE}-g++)
# The multiarch sysroot of libc6-dev-arm64-cross.
set(CMAKE_FIND_ROOT_PATH /usr/${ZM_CROSS_TRIPLE})

# Programs (cmake, nasm, ninja) come from the host; headers and libraries only from the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
