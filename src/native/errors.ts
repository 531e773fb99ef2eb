// Errors raised by the native addon (zmgate.node). The addon constructs this class itself
// (registered via initialize(ZmNativeError)), so native failures are typed in JS.

/** A failure inside native code; `code` is a stable ERR_ZM_* identifier to switch on. */
export class ZmNativeError extends Error {
  readonly code: string;

  // (message, code) is the contract with native/src/addon.cc, which calls `new ZmNativeError(message, code)`.
  constructor(message: string, code: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}
