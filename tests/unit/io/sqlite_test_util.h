#pragma once
// SQLite databases made in memory for the nsys reader's tests: the fixture made by tests/data/nsys/
// make_nsys_sqlite.py, changed by SQL, or a database made from SQL alone; returned as the bytes of a file.
#include <string>

namespace gtv::io::test {

inline const std::string kNsysDir = std::string(GTV_TEST_DATA_DIR) + "/nsys";
inline const std::string kNsysFixture = kNsysDir + "/two_gpus.sqlite";
inline const std::string kKinetoTwin = kNsysDir + "/two_gpus_kineto.json";

// The file's bytes after running sql on a copy of it (the file is left as it is).
[[nodiscard]] std::string sqlite_changed(const std::string& file_bytes, const std::string& sql);
// A database file holding what sql creates.
[[nodiscard]] std::string sqlite_from(const std::string& sql);

}  // namespace gtv::io::test
