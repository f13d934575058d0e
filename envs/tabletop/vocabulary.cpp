#include <dvla/envs/tabletop/vocabulary.hpp>

#include <cctype>
#include <sstream>

namespace dvla::envs::tabletop {

const std::vector<std::string>& vocabulary() {
  // Append only: ids are what trained policies learned.
  static const std::vector<std::string> words = {
      "<pad>", "<unk>", "pick", "up",  "the", "red",  "green", "blue", "yellow", "cube",
      "push",  "into",  "zone", "put", "in",  "bowl", "stack", "on",   "a",      "and"};
  return words;
}

std::vector<int32_t> tokenize(const std::string& instruction) {
  std::vector<int32_t> ids;
  std::istringstream in(instruction);
  std::string word;
  const auto& words = vocabulary();
  while (in >> word && ids.size() < static_cast<size_t>(instruction_length)) {
    for (auto& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    int32_t id = unknown_token;
    for (size_t i = 2; i < words.size(); ++i)
      if (words[i] == word) id = static_cast<int32_t>(i);
    ids.push_back(id);
  }
  ids.resize(instruction_length, pad_token);
  return ids;
}

}  // namespace dvla::envs::tabletop
