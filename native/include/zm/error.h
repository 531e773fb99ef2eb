// The one C++ error type for addon logic. Pure C++ code throws zm::Error; addon.cc is the only
// place that turns it (and any other std::exception) into a JS ZmNativeError carrying `code`.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace zm {

class Error : public std::runtime_error {
 public:
  // code: a stable ERR_ZM_* identifier that JS callers can switch on.
  Error(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}

  const std::string& code() const noexcept { return code_; }

 private:
  std::string code_;
};

}  // namespace zm
