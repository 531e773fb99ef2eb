#include "zm/version.h"

#ifndef ZM_VERSION
#error "ZM_VERSION must be defined by the build (CMakeLists.txt reads it from package.json)"
#endif

namespace zm {

const char* Version() noexcept { return ZM_VERSION; }

int NapiVersion() noexcept { return NAPI_VERSION; }

}  // namespace zm
