#pragma once
// One trace file through both sides: the oracle on the trace read from it, `gtv-cli analyze --format json` on the
// file, every check of oracle_checks.h between them.
#include <cstddef>
#include <string>

namespace gtv::oracle {

// The CLI built with the tests; the environment variable GTV_ORACLE_CLI names another build of it.
[[nodiscard]] std::string oracle_cli_path();

// Every number of the file compared (failures recorded as GoogleTest failures); returns how many were compared.
std::size_t compare_file(const std::string& path);

}  // namespace gtv::oracle
