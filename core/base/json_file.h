#pragma once
// Reading a JSON file with errors that name the file.
#include <filesystem>

#include <nlohmann/json.hpp>

namespace attnscope {

// Throws attnscope::Error "<file>: <what_is_missing>" when the file cannot be opened, and
// "<file>: not valid JSON (...)" when it does not parse.
nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& when_missing = "cannot open");

}  // namespace attnscope
