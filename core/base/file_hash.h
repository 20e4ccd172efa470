#pragma once
// Hashes of files as the Hugging Face Hub reports them: SHA-256 for large (LFS) files, and git's
// blob SHA-1 (of "blob <size>\0" followed by the content) for small ones; and the SHA-256 of bytes
// in memory. Computed with OpenSSL.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

namespace attnscope {

std::string sha256_file(const std::filesystem::path& file);    // lower-case hex; throws attnscope::Error
std::string git_blob_sha1(const std::filesystem::path& file);  // lower-case hex; throws attnscope::Error
std::string sha256_bytes(std::span<const std::byte> bytes);    // lower-case hex

// Checks `file` against a Hub etag: 64 hex digits are a SHA-256, 40 a git blob SHA-1. Returns an
// empty string when it matches, else what was found. Other etags cannot be checked: throws.
std::string hash_mismatch(const std::filesystem::path& file, const std::string& etag);

}  // namespace attnscope
