// Version facts baked into the addon at build time.
#pragma once

namespace zm {

// package.json "version"; CMakeLists.txt reads it and passes ZM_VERSION so the two cannot drift.
const char* Version() noexcept;

// The Node-API version the addon is compiled against (NAPI_VERSION, from CMakeLists.txt).
int NapiVersion() noexcept;

}  // namespace zm
