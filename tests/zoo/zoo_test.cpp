// The model zoo (models/*.net) against torchvision.
//
// Golden figures: torchvision's documentation, "Classification" weights tables
// (https://pytorch.org/vision/stable/models.html#table-of-all-available-classification-weights), whose
// columns "Params" and "GFLOPS" come from each weights enum's meta["num_params"] and meta["_ops"] in
// torchvision/models/*.py (e.g. EfficientNet_B0_Weights.IMAGENET1K_V1: num_params 5288548, _ops 0.386,
// printed as 0.39). Both the printed figure and the source's 3-decimal _ops are checked.
// torchvision's "GFLOPS" are multiply-accumulates of conv and linear layers (one MAC = one "FLOP") at
// the weights' evaluation resolution, so they are compared with the engine's MACs, not its FLOPs.
// Parameters are compared exactly; MACs within the published rounding (half a unit of the last
// published digit).
#include "engine/op_costs.hpp"
#include "lang/ir/network.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

using namespace ridge;

namespace {

std::string model_path(const std::string& name) { return std::string(RIDGE_MODELS_DIR) + "/" + name + ".net"; }

std::int64_t total_parameters(const ir::Network& net) {
  std::int64_t n = 0;
  for (const auto& layer : net.layers) n += ir::parameter_count(layer, ir::input_shapes(net, layer));
  return n;
}

// Forward MACs of one sample, from the engine's op-cost table.
double engine_macs(const ir::Network& net) {
  const auto grads = engine::grad_flags(net);
  double macs = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    macs += engine::op_cost(net, net.layers[i], 1, ir::Precision::FP32, grads[i]).macs;
  return macs;
}

// An independent hand count, kept separate from the engine on purpose: conv MACs are output elements x
// (input channels / groups) x kernel area; linear MACs are output elements x input features.
double hand_macs(const ir::Network& net) {
  double macs = 0;
  for (const auto& layer : net.layers) {
    const auto in = ir::input_shapes(net, layer);
    const double out = static_cast<double>(ir::element_count(layer.output));
    if (layer.op == ir::op("conv")) {
      double k = 1;
      for (auto d : layer.attrs.ints("kernel")) k *= static_cast<double>(d);
      macs += out * static_cast<double>(in[0][0] / layer.attrs.i("groups")) * k;
    } else if (layer.op == ir::op("linear"))
      macs += out * static_cast<double>(in[0].back());
  }
  return macs;
}

// Half a unit of the last digit of a published figure: "0.71" -> 0.005, "1.5" -> 0.05.
double half_unit(const std::string& published) {
  const auto dot = published.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(published.size() - dot - 1);
  return 0.5 * std::pow(10.0, -decimals);
}

// The output shape of the block instance (or layer) `scope`: its last layer in topological order.
ir::Shape scope_output(const ir::Network& net, const std::string& scope) {
  const ir::Layer* last = nullptr;
  for (const auto& layer : net.layers)
    if (layer.name == scope || layer.name.rfind(scope + ".", 0) == 0) last = &layer;
  if (!last) FAIL("no layer named " << scope << " or inside it in " << net.name);
  return last->output;
}

// The shape entering the classifier head: the input of the network's last adaptive average pool.
ir::Shape head_input(const ir::Network& net) {
  const ir::Layer* pool = nullptr;
  for (const auto& layer : net.layers)
    if (layer.op == ir::op("adaptive_avgpool")) pool = &layer;
  REQUIRE(pool != nullptr);
  return net.layers.at(pool->inputs.at(0)).output;
}

std::int64_t count_op(const ir::Network& net, ir::Op op) {
  std::int64_t n = 0;
  for (const auto& layer : net.layers) n += layer.op == op;
  return n;
}

}  // namespace

TEST_CASE("every zoo network matches torchvision's published parameters and GFLOPS") {
  // name, num_params, GFLOPS as the docs table prints it, and meta["_ops"] as the source holds it
  auto [name, params, gflops, ops] = GENERATE(table<std::string, std::int64_t, std::string, std::string>({
      {"alexnet", 61'100'840, "0.71", "0.714"},
      {"vgg11", 132'863'336, "7.61", "7.609"},
      {"vgg13", 133'047'848, "11.31", "11.308"},
      {"vgg16", 138'357'544, "15.47", "15.47"},
      {"vgg19", 143'667'240, "19.63", "19.632"},
      {"vgg16_bn", 138'365'992, "15.47", "15.47"},
      {"resnet18", 11'689'512, "1.81", "1.814"},
      {"resnet34", 21'797'672, "3.66", "3.664"},
      {"resnet50", 25'557'032, "4.09", "4.089"},
      {"googlenet", 6'624'904, "1.5", "1.498"},
      {"squeezenet1_0", 1'248'424, "0.82", "0.819"},
      {"squeezenet1_1", 1'235'496, "0.35", "0.349"},
      {"shufflenet_v2_x2_0", 7'393'996, "0.58", "0.583"},
      {"mobilenet_v2", 3'504'872, "0.3", "0.301"},
      {"mobilenet_v3_small", 2'542'856, "0.06", "0.057"},
      {"mobilenet_v3_large", 5'483'032, "0.22", "0.217"},
      {"efficientnet_b0", 5'288'548, "0.39", "0.386"},
      {"efficientnet_b1", 7'794'184, "0.69", "0.687"},
      {"efficientnet_b2", 9'109'994, "1.09", "1.088"},
      {"efficientnet_b3", 12'233'232, "1.83", "1.827"},
      {"efficientnet_b4", 19'341'616, "4.39", "4.394"},
      {"densenet121", 7'978'856, "2.83", "2.834"},
      {"vit_b_16", 86'567'656, "17.56", "17.564"},
      {"convnext_tiny", 28'589'128, "4.46", "4.456"},
      {"vit_b_32", 88'224'232, "4.41", "4.409"},
      {"vit_l_16", 304'326'632, "61.55", "61.555"},
      {"regnet_y_400mf", 4'344'144, "0.4", "0.402"},
      {"efficientnet_v2_s", 21'458'488, "8.37", "8.366"},
      {"swin_t", 28'288'354, "4.49", "4.491"},     // counts the attention matmuls, as torchvision's figure does
      {"resnext50_32x4d", 25'028'904, "4.23", "4.23"},
      {"wide_resnet50_2", 68'883'240, "11.4", "11.398"},
      {"inception_v3", 27'161'264, "5.71", "5.713"},  // params include the AuxLogits head; MACs do not
  }));
  CAPTURE(name);
  const ir::Network net = lang::load_network(model_path(name));
  CHECK(net.name == name);
  CHECK(net.layers.at(net.output).output == ir::Shape{1000});
  CHECK(total_parameters(net) == params);

  const double gmacs = engine_macs(net) / 1e9;
  CAPTURE(gmacs, gflops, ops);
  CHECK(std::abs(gmacs - std::stod(gflops)) <= half_unit(gflops) + 1e-9);
  CHECK(std::abs(gmacs - std::stod(ops)) <= half_unit(ops) + 1e-9);
  // hand_macs counts conv and linear layers only. torchvision's figure for a network with matmul or
  // attention layers (swin_t's window attention) includes their MACs too, so the cross-check is made on
  // the networks without such layers.
  if (count_op(net, ir::op("matmul")) + count_op(net, ir::op("attention")) == 0)
    CHECK(engine_macs(net) == hand_macs(net));
}

TEST_CASE("unet matches milesial/Pytorch-UNet's parameters") {
  // Source: https://github.com/milesial/Pytorch-UNet (unet/unet_model.py, unet/unet_parts.py at 21d7850),
  // UNet(n_channels=3, n_classes, bilinear=False), counted from its structure and rebuilt in torch:
  // 31,037,698 parameters for n_classes=2 (train.py's default), 31,037,763 for n_classes=3 (the figure
  // usually quoted), 64 + 1 per class in the 1x1 OutConv. Not torchvision: no published FLOPs.
  const auto net = lang::load_network(model_path("unet"));
  CHECK(net.name == "unet");
  CHECK(net.layers.at(net.output).output == ir::Shape{2, 640, 959});
  CHECK(total_parameters(net) == 31'037'698);
  const auto three = lang::load_network(model_path("unet"), {{"classes", "3"}});
  CHECK(three.layers.at(three.output).output == ir::Shape{3, 640, 959});
  CHECK(total_parameters(three) == 31'037'763);
  CHECK(engine_macs(net) == hand_macs(net) + 4.0 * 1024 * 512 * 40 * 59 + 4.0 * 512 * 256 * 80 * 119 +
                                4.0 * 256 * 128 * 160 * 239 + 4.0 * 128 * 64 * 320 * 479);  // + the four 2x2 transposed convs
}

TEST_CASE("zoo networks have torchvision's layers") {
  // Module counts read off torchvision's source (nn.Conv2d, nn.BatchNorm2d, nn.Linear instances).
  auto [name, convs, batchnorms, linears] = GENERATE(table<std::string, std::int64_t, std::int64_t, std::int64_t>({
      {"alexnet", 5, 0, 3},
      {"vgg16", 13, 0, 3},
      {"vgg16_bn", 13, 13, 3},
      {"resnet34", 36, 36, 1},           // stem + 16 blocks x 2 + 3 downsample projections
      {"resnet50", 53, 53, 1},           // stem + 16 blocks x 3 + 4 downsample projections
      {"googlenet", 57, 57, 1},          // 3 stem BasicConv2d + 9 inceptions x 6 (aux heads off)
      {"squeezenet1_0", 26, 0, 0},       // stem + 8 fires x 3 + final conv
      {"shufflenet_v2_x2_0", 56, 56, 1}, // conv1 + 3 stride-2 units x 5 + 13 units x 3 + conv5
      {"mobilenet_v2", 52, 52, 1},       // stem + 2 (t = 1) + 16 blocks x 3 + last conv
      {"efficientnet_b0", 81, 49, 1},    // stem + 4 (expand 1: dw, SE x 2, project) + 15 x 5 + head conv
      {"densenet121", 120, 121, 1},      // conv0 + 58 dense layers x 2 + 3 transitions
      {"regnet_y_400mf", 85, 53, 1},     // stem + 16 blocks x 5 (a, b, SE x 2, c) + 4 projections
      {"efficientnet_v2_s", 170, 110, 1}, // stem + 2 + 8 x 2 (fused) + 30 x 5 (MBConv, SE x 2) + head conv
      {"swin_t", 1, 0, 52},              // patch embedding; 12 blocks x 4 (qkv, proj, mlp x 2) + 3 merges + head
  }));
  CAPTURE(name);
  const ir::Network net = lang::load_network(model_path(name));
  CHECK(count_op(net, ir::op("conv")) == convs);
  CHECK(count_op(net, ir::op("batchnorm")) == batchnorms);
  CHECK(count_op(net, ir::op("linear")) == linears);
}

TEST_CASE("intermediate shapes match torchvision's") {
  // Shapes as torchvision's forward() comments and feature maps give them at the weights' resolution.
  SECTION("resnet") {
    const auto net = lang::load_network(model_path("resnet50"));
    CHECK(scope_output(net, "maxpool") == ir::Shape{64, 56, 56});
    CHECK(scope_output(net, "layer1") == ir::Shape{256, 56, 56});
    CHECK(scope_output(net, "layer2") == ir::Shape{512, 28, 28});
    CHECK(scope_output(net, "layer3") == ir::Shape{1024, 14, 14});
    CHECK(scope_output(net, "layer4") == ir::Shape{2048, 7, 7});
    const auto r34 = lang::load_network(model_path("resnet34"));
    CHECK(scope_output(r34, "layer4") == ir::Shape{512, 7, 7});
  }
  SECTION("googlenet") {
    const auto net = lang::load_network(model_path("googlenet"));
    CHECK(scope_output(net, "maxpool1") == ir::Shape{64, 56, 56});   // ceil_mode: 112 -> 56
    CHECK(scope_output(net, "maxpool2") == ir::Shape{192, 28, 28});
    CHECK(scope_output(net, "inception3a") == ir::Shape{256, 28, 28});
    CHECK(scope_output(net, "inception3b") == ir::Shape{480, 28, 28});
    CHECK(scope_output(net, "inception4a") == ir::Shape{512, 14, 14});
    CHECK(scope_output(net, "inception4d") == ir::Shape{528, 14, 14});
    CHECK(scope_output(net, "inception4e") == ir::Shape{832, 14, 14});
    CHECK(scope_output(net, "maxpool4") == ir::Shape{832, 7, 7});
    CHECK(scope_output(net, "inception5b") == ir::Shape{1024, 7, 7});
  }
  SECTION("vgg and alexnet") {
    CHECK(head_input(lang::load_network(model_path("alexnet"))) == ir::Shape{256, 6, 6});
    CHECK(head_input(lang::load_network(model_path("vgg16"))) == ir::Shape{512, 7, 7});
    CHECK(head_input(lang::load_network(model_path("vgg19"))) == ir::Shape{512, 7, 7});
  }
  SECTION("squeezenet") {
    const auto v10 = lang::load_network(model_path("squeezenet1_0"));
    CHECK(scope_output(v10, "maxpool1") == ir::Shape{96, 54, 54});
    CHECK(scope_output(v10, "final_conv") == ir::Shape{1000, 13, 13});
    const auto v11 = lang::load_network(model_path("squeezenet1_1"));
    CHECK(scope_output(v11, "maxpool1") == ir::Shape{64, 55, 55});
    CHECK(scope_output(v11, "final_conv") == ir::Shape{1000, 13, 13});
  }
  SECTION("shufflenet") {
    const auto net = lang::load_network(model_path("shufflenet_v2_x2_0"));
    CHECK(scope_output(net, "stage2") == ir::Shape{244, 28, 28});
    CHECK(scope_output(net, "stage3") == ir::Shape{488, 14, 14});
    CHECK(scope_output(net, "stage4") == ir::Shape{976, 7, 7});
    CHECK(head_input(net) == ir::Shape{2048, 7, 7});
  }
  SECTION("mobilenets") {
    CHECK(head_input(lang::load_network(model_path("mobilenet_v2"))) == ir::Shape{1280, 7, 7});
    CHECK(head_input(lang::load_network(model_path("mobilenet_v3_large"))) == ir::Shape{960, 7, 7});
    CHECK(head_input(lang::load_network(model_path("mobilenet_v3_small"))) == ir::Shape{576, 7, 7});
  }
  SECTION("efficientnet") {
    // lastconv = 4 x make_divisible(320 x width_mult, 8) channels at resolution / 32 (rounded up).
    auto [name, features] = GENERATE(table<std::string, ir::Shape>({
        {"efficientnet_b0", {1280, 7, 7}},
        {"efficientnet_b1", {1280, 8, 8}},
        {"efficientnet_b2", {1408, 9, 9}},
        {"efficientnet_b3", {1536, 10, 10}},
        {"efficientnet_b4", {1792, 12, 12}},
    }));
    CAPTURE(name);
    const auto net = lang::load_network(model_path(name));
    CHECK(scope_output(net, "lastconv") == features);
    CHECK(head_input(net) == features);
  }
  SECTION("densenet") {
    const auto net = lang::load_network(model_path("densenet121"));
    CHECK(scope_output(net, "pool0") == ir::Shape{64, 56, 56});
    CHECK(scope_output(net, "denseblock1") == ir::Shape{256, 56, 56});
    CHECK(scope_output(net, "transition1") == ir::Shape{128, 28, 28});
    CHECK(scope_output(net, "denseblock2") == ir::Shape{512, 28, 28});
    CHECK(scope_output(net, "transition2") == ir::Shape{256, 14, 14});
    CHECK(scope_output(net, "denseblock3") == ir::Shape{1024, 14, 14});
    CHECK(scope_output(net, "transition3") == ir::Shape{512, 7, 7});
    CHECK(scope_output(net, "denseblock4") == ir::Shape{1024, 7, 7});
  }
}

TEST_CASE("zoo networks take overrides of their parameters") {
  SECTION("classes") {
    // Only the classifier changes: (1000 - 10) x (features + 1) fewer parameters.
    auto [name, features, params] = GENERATE(table<std::string, std::int64_t, std::int64_t>({
        {"resnet50", 2048, 25'557'032},
        {"mobilenet_v3_small", 1024, 2'542'856},
        {"efficientnet_b0", 1280, 5'288'548},
        {"densenet121", 1024, 7'978'856},
    }));
    CAPTURE(name);
    const auto net = lang::load_network(model_path(name), {{"classes", "10"}});
    CHECK(net.layers.at(net.output).output == ir::Shape{10});
    CHECK(total_parameters(net) == params - 990 * (features + 1));
  }
  SECTION("squeezenet's classes are its final conv's channels") {
    const auto net = lang::load_network(model_path("squeezenet1_1"), {{"classes", "10"}});
    CHECK(net.layers.at(net.output).output == ir::Shape{10});
    CHECK(total_parameters(net) == 1'235'496 - 990 * (512 + 1));
  }
  SECTION("a boolean parameter") {
    // vgg16 with batch_norm on is torchvision's vgg16_bn, layer for layer.
    const auto net = lang::load_network(model_path("vgg16"), {{"batch_norm", "true"}});
    CHECK(total_parameters(net) == 138'365'992);
    const auto bn = lang::load_network(model_path("vgg16_bn"));
    REQUIRE(net.layers.size() == bn.layers.size());
    for (std::size_t i = 0; i < net.layers.size(); ++i) CHECK(net.layers[i] == bn.layers[i]);
  }
  SECTION("resolution") {
    // torchvision's EfficientNet-B0 at B4's resolution: same parameters, larger feature map.
    const auto net = lang::load_network(model_path("efficientnet_b0"), {{"resolution", "380"}});
    CHECK(total_parameters(net) == 5'288'548);
    CHECK(head_input(net) == ir::Shape{1280, 12, 12});
  }
  SECTION("width") {
    // torchvision's mobilenet_v2(width_mult=0.5): the stem rounds to make_divisible(32 x 0.5, 8) = 16
    // channels, the last conv keeps make_divisible(1280 x max(1.0, 0.5), 8) = 1280.
    const auto net = lang::load_network(model_path("mobilenet_v2"), {{"width", "0.5"}});
    CHECK(net.layers.at(1).op == ir::op("conv"));
    CHECK(net.layers.at(1).output == ir::Shape{16, 112, 112});
    CHECK(head_input(net) == ir::Shape{1280, 7, 7});
    CHECK(total_parameters(net) < 3'504'872);
  }
  SECTION("an unknown parameter is refused") {
    CHECK_THROWS(lang::load_network(model_path("resnet50"), {{"no_such_parameter", "1"}}));
  }
}

TEST_CASE("language models match their published parameter counts") {
  // name, published parameter count, where the figure comes from. Every count is exact: the files hold
  // each checkpoint's tensors in full (whole position tables, sliced to seq_len; tied heads counted once).
  auto [name, params, source] = GENERATE(table<std::string, std::int64_t, std::string>({
      // Hugging Face BertModel (pooler included, no pre-training heads) with the published config.json
      {"bert_base", 109'482'240, "bert-base-uncased: BertModel parameters"},
      {"bert_large", 335'141'888, "bert-large-uncased: BertModel parameters"},
      // Hugging Face GPT2LMHeadModel with the published config.json, the tied lm_head counted once
      {"gpt2", 124'439'808, "gpt2: GPT2LMHeadModel parameters"},
      {"gpt2_medium", 354'823'168, "gpt2-medium: GPT2LMHeadModel parameters"},
      {"gpt2_large", 774'030'080, "gpt2-large: GPT2LMHeadModel parameters"},
      {"gpt2_xl", 1'557'611'200, "gpt2-xl: GPT2LMHeadModel parameters"},
      // gpt.net's defaults are GPT-3 Small: Brown et al. 2020, Table 2.1 prints "125M"; the exact count is
      // the hand count of its configuration. All eight sizes are checked in the next test case.
      {"gpt", 125'226'240, "Brown et al. 2020, Table 2.1, GPT-3 Small (125M; exact count by hand)"},
      // Hugging Face LlamaForCausalLM / MistralForCausalLM with the published config.json (untied lm_head):
      // the sum of the checkpoint's tensors (the model cards round it: "7B", "13B", "70B", "8B", "7.3B")
      {"llama", 6'738'415'616, "meta-llama/Llama-2-7b-hf (llama.net's defaults)"},
      {"llama2_7b", 6'738'415'616, "meta-llama/Llama-2-7b-hf"},
      {"llama2_13b", 13'015'864'320, "meta-llama/Llama-2-13b-hf"},
      {"llama2_70b", 68'976'648'192, "meta-llama/Llama-2-70b-hf"},
      {"llama3_8b", 8'030'261'248, "meta-llama/Meta-Llama-3-8B"},
      {"llama3_70b", 70'553'706'496, "meta-llama/Meta-Llama-3-70B"},
      {"mistral_7b", 7'241'732'096, "mistralai/Mistral-7B-v0.1"},
      {"mixtral_8x7b", 46'702'792'704, "mistralai/Mixtral-8x7B-v0.1 (hand count in the file's header)"},
  }));
  CAPTURE(name, source);
  const ir::Network net = lang::load_network(model_path(name));
  CHECK(net.name == name);
  CHECK(total_parameters(net) == params);
}

TEST_CASE("gpt.net gives GPT-3's eight sizes") {
  // Brown et al. 2020 (arXiv:2005.14165), Table 2.1: n_layers, d_model, n_heads and the rounded n_params.
  // The exact count is n = 50257 d + 2048 d + n_layers (12 d^2 + 13 d) + 2 d (tied head counted once).
  // The paper rounds loosely ("350M" for 355.9M), so the exact count is held within 2% of its figure.
  // XL is written with 16 heads of 128 (the table's 24 x 128 is not its d_model 2048) and 13B with
  // d_model 5120 = 40 x 128 (the table's 5140 has no 40-way split); models/gpt.net explains both.
  auto [layers, hidden, heads, exact, paper] =
      GENERATE(table<std::string, std::string, std::string, std::int64_t, double>({
          {"12", "768", "12", 125'226'240, 125e6},
          {"24", "1024", "16", 355'871'744, 350e6},
          {"24", "1536", "16", 760'300'032, 760e6},
          {"24", "2048", "16", 1'315'723'264, 1.3e9},
          {"32", "2560", "32", 2'651'553'280, 2.7e9},
          {"32", "4096", "32", 6'658'404'352, 6.7e9},
          {"40", "5120", "40", 12'853'386'240, 13.0e9},
          {"96", "12288", "96", 174'604'259'328, 175.0e9},
      }));
  CAPTURE(layers, hidden, heads);
  const lang::Overrides set{
      {"layers", layers}, {"hidden", hidden}, {"heads", heads}, {"seq_len", "2048"}, {"vocab", "50257"}};
  const ir::Network net = lang::load_network(model_path("gpt"), set);
  const std::int64_t d = std::stoll(hidden), n = std::stoll(layers);
  CHECK(exact == 50257 * d + 2048 * d + n * (12 * d * d + 13 * d) + 2 * d);
  CHECK(total_parameters(net) == exact);
  CHECK(std::abs(static_cast<double>(exact) / paper - 1) < 0.02);
}
