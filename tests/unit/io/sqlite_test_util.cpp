#include "sqlite_test_util.h"

#include <sqlite3.h>

#include <cstring>
#include <stdexcept>

namespace gtv::io::test {
namespace {

std::string run_and_serialize(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string what = message != nullptr ? message : "?";
    sqlite3_free(message);
    sqlite3_close(db);
    throw std::runtime_error("test SQL failed: " + what);
  }
  sqlite3_int64 size = 0;
  unsigned char* data = sqlite3_serialize(db, "main", &size, 0);
  std::string bytes(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
  sqlite3_free(data);
  sqlite3_close(db);
  return bytes;
}

}  // namespace

std::string sqlite_changed(const std::string& file_bytes, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(file_bytes.size()));
  std::memcpy(copy, file_bytes.data(), file_bytes.size());
  const auto size = static_cast<sqlite3_int64>(file_bytes.size());
  if (sqlite3_deserialize(db, "main", copy, size, size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
    throw std::runtime_error("sqlite3_deserialize failed");
  return run_and_serialize(db, sql);
}

std::string sqlite_from(const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  return run_and_serialize(db, sql);
}

}  // namespace gtv::io::test
