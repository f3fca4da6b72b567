#pragma once
// What `list` and `run` say in a build without LibTorch.
#include <string_view>

namespace gtv::cli {

inline constexpr std::string_view kNoTorchMessage =
    "this gtv-cli was built without LibTorch (GTV_WITH_TORCH=OFF), so it cannot run experiments; "
    "rebuild with -DGTV_WITH_TORCH=ON (see scripts/build-cuda)";

}  // namespace gtv::cli
