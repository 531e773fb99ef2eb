// Stateless bitstream helpers exported to JS (parameter-set parsing, codec strings, AAC config).
#pragma once

#include <napi.h>

namespace zm::js {

void RegisterBitstreamFunctions(Napi::Env env, Napi::Object exports);

}  // namespace zm::js
