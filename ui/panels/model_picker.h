#pragma once
// Choosing the model: recent models, the models already in the Hugging Face cache that attnscope
// reads (encoders and decoders, folders and GGUF files, each with its model type), a checkpoint
// folder or GGUF file, or a download by id with its progress. On a first run without the default
// model it offers the clear choice: download bert-base-uncased (440 MB) or use the small model
// that is already installed.
#include <optional>
#include <string>
#include <vector>

#include "download_job.h"
#include "model/model_locator.h"

namespace attnscope::ui {

class ModelPicker {
 public:
  explicit ModelPicker(std::string installed_model) : installed_(std::move(installed_model)) {}
  void open();                           // shows the picker
  void offer_first_run();                // shows the first-run choice
  void download(const std::string& id);  // opens the picker and starts downloading `id`
  bool downloading() const { return download_.state().running || !download_.state().finished.empty(); }
  // Draws whatever is open; returns the model the user picked (folder or id).
  std::optional<std::string> draw(const std::vector<std::string>& recent);

 private:
  std::optional<std::string> draw_picker(const std::vector<std::string>& recent);
  std::optional<std::string> draw_first_run();
  void draw_download_progress();
  std::string installed_, folder_, id_ = "bert-base-uncased";  // folder_: a folder or a .gguf file
  std::vector<CachedModel> cached_;
  DownloadJob download_;
  bool open_picker_ = false, open_first_run_ = false;
};

}  // namespace attnscope::ui
