#!/usr/bin/env bash
# Builds the tair-kvcache Optimizer (kv_cache_manager/optimizer, Feb 2026 snapshot) with g++ -O2, without Bazel,
# for the side-by-side bench (README.md beside this file). Usage: build.sh <tair-kvcache checkout> <output binary>
# Needs g++ and rapidjson's headers (Debian: rapidjson-dev). Works on a copy: the checkout is left as it is.
set -euo pipefail
src=${1:?usage: build.sh <tair-kvcache checkout> <output binary>}
out=${2:?usage: build.sh <tair-kvcache checkout> <output binary>}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/kv_cache_manager" "$work/"
kv=$work/kv_cache_manager
# The snapshot reads a Get+Write trace (optimizer_schema) only in rw-separated mode, which it enables for
# publisher logs alone: turn it on for optimizer_schema too, so that lmt's read_write traces replay as gets and writes.
sed -i 's|config.set_rw_separation(false); // trace_anonymous_tool|config.set_rw_separation(true); // trace_anonymous_tool|' \
  "$kv/optimizer/trace_converter/converter_factory.cc"
grep -q 'set_rw_separation(true); // trace_anonymous_tool' "$kv/optimizer/trace_converter/converter_factory.cc"
# The real logger sits on havenask's alog; this stand-in prints the same messages to stderr.
cat > "$work/logger_stub.cc" <<'CC'
#include <cstdarg>
#include <cstdio>
#include "kv_cache_manager/common/logger.h"
namespace kv_cache_manager {
uint32_t LoggerBroker::base_log_level_ = Logger::LEVEL_INFO;
std::recursive_mutex LoggerBroker::logger_mutex_;
std::unique_ptr<Logger> LoggerBroker::logger_;
std::unique_ptr<Logger> LoggerBroker::access_logger_;
std::unique_ptr<Logger> LoggerBroker::metrics_logger_;
std::unique_ptr<Logger> LoggerBroker::publisher_logger_;
struct Logger::Impl {};
Logger::Logger(void *) {}
Logger::~Logger() {}
bool LoggerBroker::InitLogger(const std::string &, bool) { return true; }
void LoggerBroker::DestroyLogger() {}
void LoggerBroker::SetLogLevel(uint32_t level) { base_log_level_ = level; }
void LoggerBroker::Log(int level, const char *file, int line, const char *, const char *format, ...) {
    std::fprintf(stderr, "[%d] %s:%d ", level, file, line);
    va_list ap;
    va_start(ap, format);
    std::vfprintf(stderr, format, ap);
    va_end(ap);
    std::fputc('\n', stderr);
}
} // namespace kv_cache_manager
CC
srcs=("$kv"/optimizer/main.cc "$kv"/optimizer/{config,eviction_policy,index,manager,trace_converter,analysis}/*.cc
  "$kv"/common/jsonizable.cc "$kv"/data_storage/storage_config.cc "$kv"/manager/cache_location.cc "$work/logger_stub.cc")
objs=()
for f in "${srcs[@]}"; do
  o=$work/$(basename "$(dirname "$f")")_$(basename "$f" .cc).o
  g++ -std=c++17 -O2 -DNDEBUG -DRAPIDJSON_HAS_STDSTRING=1 -DRAPIDJSON_WRITE_DEFAULT_FLAGS=2 -I"$work" -c "$f" -o "$o"
  objs+=("$o")
done
g++ -O2 "${objs[@]}" -o "$out"
echo "built $out"
