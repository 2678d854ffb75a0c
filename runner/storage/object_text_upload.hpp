#pragma once

#include <string>
#include <vector>

/**
 * @file
 * Writing a small object from memory (`rclone rcat`), for what must reach the bucket when the
 * scratch folder cannot take a file: the error that ends a run on a full disk (WriterClaim::keep_end).
 */
namespace shardrun::storage {

/**
 * Uploads `text` as the object `remote` (one PUT: the object is whole or absent), through a memfd
 * rather than a file of the scratch folder. Only rclone's (empty, on success) error log touches it.
 * @throws TransferError
 */
void upload_text(const std::string& text, const std::string& remote, const std::vector<std::string>& flags = {});

}  // namespace shardrun::storage
