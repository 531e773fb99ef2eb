# NOT the build. CMakeLists.txt is the one source of truth for the native addon; build it
# with `npm run build:native` (cmake-js) or `npm run prebuild` (prebuildify via
# scripts/cmake-js-shim.sh, which runs cmake-js too).
#
# This stub exists only so that node-gyp, if anything ever invokes it, does nothing: the one
# target is of type "none" with no sources or flags, so node-gyp can never compile a second,
# divergent zmgate.node. Keep it that way (test/10.native.test.ts checks); change
# CMakeLists.txt instead. Kept in plain JSON syntax apart from these comments.
{
  "targets": [
    {
      "target_name": "zmgate",
      "type": "none"
    }
  ]
}
