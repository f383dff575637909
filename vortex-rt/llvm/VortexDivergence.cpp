// vortex-divergence: an LLVM pass plugin (Debian's LLVM 14) that makes plain C/C++ kernels run
// on Vortex's SIMT hardware, as Vortex's own compiler does: after every optimizer that could
// copy or thread code, it
//   - finds the values and branches that may differ between the lanes of a warp (sources: the
//     thread-id CSRs, other inline asm results, calls, atomics, the per-lane stack and
//     thread-local variables, arguments of functions that are not kernel bodies);
//   - rewrites selects on divergent conditions as arithmetic (the RISC-V backend would turn
//     them into branches);
//   - structurizes functions that have a divergent branch (single-exit loops, nested regions);
//   - wraps each divergent branch in SPLIT ... JOIN (the JOIN at the branch's immediate
//     post-dominator) and predicates each loop whose exit is divergent (PRED keeps the lanes
//     that continue and restores the entry mask when none does).
// The inserted instructions, and every Vortex instruction written by hand (inline asm with
// custom-0 opcode 0x0B), are marked convergent so that no later pass duplicates them.
// Used with: clang -fpass-plugin=VortexDivergence.so (vortex-rt/cmake, `vxsynth sim cc`).
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/DivergenceAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/SyncDependenceAnalysis.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Scalar/StructurizeCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/FixIrreducible.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/LowerSwitch.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"
#include "llvm/Transforms/Utils/UnifyLoopExits.h"

using namespace llvm;

namespace {

// Vortex CSRs whose value is the same on every lane of a warp (VX_types.h).
bool is_uniform_csr(uint64_t csr) {
  switch (csr) {
    case 0xCC1:  // warp id
    case 0xCC2:  // core id
    case 0xCC3:  // active warps
    case 0xCC4:  // active threads (the thread mask)
    case 0xFC0:  // threads per warp
    case 0xFC1:  // warps per core
    case 0xFC2:  // cores
      return true;
    default:
      return false;
  }
}

bool is_vortex_asm(const CallBase& call) {
  const auto* asm_ = dyn_cast<InlineAsm>(call.getCalledOperand());
  if (asm_ == nullptr) return false;
  const std::string& text = asm_->getAsmString();
  return text.find("0x0B") != std::string::npos || text.find("0x0b") != std::string::npos;
}

// An inline-asm CSR read whose result is warp-uniform: "csrr $0, $1" with an immediate CSR.
bool is_uniform_asm(const CallBase& call) {
  const auto* asm_ = dyn_cast<InlineAsm>(call.getCalledOperand());
  if (asm_ == nullptr) return false;
  const std::string& text = asm_->getAsmString();
  if (text.rfind("csrr ", 0) != 0) return false;
  for (const Use& arg : call.args()) {
    if (const auto* c = dyn_cast<ConstantInt>(arg.get())) return is_uniform_csr(c->getZExtValue());
  }
  return false;
}

// Marks every hand-written Vortex instruction convergent before the optimizers run, so that
// jump threading, unswitching, tail duplication and friends leave vx_split/vx_join regions as
// written (each checks for convergent calls before copying code into new control paths).
struct MarkVortexConvergent : PassInfoMixin<MarkVortexConvergent> {
  static bool isRequired() { return true; }
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    bool changed = false;
    for (Function& f : m) {
      for (Instruction& i : instructions(f)) {
        auto* call = dyn_cast<CallBase>(&i);
        if (call == nullptr || !is_vortex_asm(*call) || call->isConvergent()) continue;
        // Convergent, not noduplicate: unrolling may copy a whole region (split and join
        // together); what must not happen is a copy that adds control dependences.
        call->setConvergent();
        changed = true;
      }
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

// Functions handed to vx_spawn_threads as the kernel body: every lane gets the same argument.
SmallPtrSet<const Function*, 8> spawned_bodies(const Module& m) {
  SmallPtrSet<const Function*, 8> out;
  for (const Function& f : m) {
    if (!f.getName().startswith("vx_spawn_threads")) continue;
    for (const User* u : f.users()) {
      const auto* call = dyn_cast<CallBase>(u);
      if (call == nullptr) continue;
      for (const Use& arg : call->args()) {
        if (const auto* body = dyn_cast<Function>(arg.get()->stripPointerCasts())) out.insert(body);
      }
    }
  }
  return out;
}

bool refers_to_thread_local(const Value* v) {
  const Value* base = getUnderlyingObject(v, 8);
  const auto* gv = dyn_cast<GlobalVariable>(base);
  return gv != nullptr && gv->isThreadLocal();
}

std::string location_of(const Instruction& i) {
  std::string out = i.getFunction()->getName().str();
  if (const DILocation* loc = i.getDebugLoc()) {
    out += " (" + loc->getFilename().str() + ":" + std::to_string(loc->getLine()) + ")";
  }
  return out;
}

[[noreturn]] void refuse(const Instruction& at, const std::string& why) {
  report_fatal_error(Twine("vortex-divergence: ") + location_of(at) + ": " + why +
                         "; rewrite the control flow (e.g. one exit per loop) or keep the condition warp-uniform",
                     false);
}

// Divergence of one function: seeds as described at the top, propagated by LLVM's
// DivergenceAnalysisImpl (data and sync dependences, temporal divergence out of loops).
class Divergence {
 public:
  Divergence(Function& f, bool uniform_args) {
    dt_ = std::make_unique<DominatorTree>(f);
    pdt_ = std::make_unique<PostDominatorTree>(f);
    li_ = std::make_unique<LoopInfo>(*dt_);
    sda_ = std::make_unique<SyncDependenceAnalysis>(*dt_, *pdt_, *li_);
    da_ = std::make_unique<DivergenceAnalysisImpl>(f, nullptr, *dt_, *li_, *sda_, /*IsLCSSAForm=*/false);
    if (!uniform_args) {
      for (Argument& a : f.args()) da_->markDivergent(a);
    }
    for (Instruction& i : instructions(f)) {
      if (isa<AllocaInst>(i) || isa<AtomicRMWInst>(i) || isa<AtomicCmpXchgInst>(i)) {
        da_->markDivergent(i);
        continue;
      }
      if (auto* call = dyn_cast<CallBase>(&i)) {
        if (call->getType()->isVoidTy()) continue;
        if (isa<InlineAsm>(call->getCalledOperand())) {
          if (!is_uniform_asm(*call)) da_->markDivergent(i);
        } else if (!isa<IntrinsicInst>(call)) {
          da_->markDivergent(i);  // the callee may read the lane's id or stack
        }
        continue;
      }
      for (const Use& op : i.operands()) {
        if (op->getType()->isPointerTy() && refers_to_thread_local(op.get())) {
          da_->markDivergent(i);
          break;
        }
      }
    }
    da_->compute();
  }
  bool divergent(const Value& v) const { return da_->isDivergent(v); }
  bool divergent_branch(const BasicBlock& bb) const {
    const auto* br = dyn_cast<BranchInst>(bb.getTerminator());
    return br != nullptr && br->isConditional() && divergent(*br->getCondition());
  }
  DominatorTree& dt() { return *dt_; }
  PostDominatorTree& pdt() { return *pdt_; }
  LoopInfo& li() { return *li_; }

 private:
  std::unique_ptr<DominatorTree> dt_;
  std::unique_ptr<PostDominatorTree> pdt_;
  std::unique_ptr<LoopInfo> li_;
  std::unique_ptr<SyncDependenceAnalysis> sda_;
  std::unique_ptr<DivergenceAnalysisImpl> da_;
};

// select c, a, b  ->  b ^ ((a ^ b) & -zext(c)), on the integer bits of a and b.
Value* blend(IRBuilder<>& b, Value* cond, Value* if_true, Value* if_false) {
  Type* type = if_true->getType();
  const DataLayout& dl = b.GetInsertBlock()->getModule()->getDataLayout();
  Type* int_type = b.getIntNTy(static_cast<unsigned>(dl.getTypeSizeInBits(type)));
  auto to_int = [&](Value* v) -> Value* {
    if (type->isPointerTy()) return b.CreatePtrToInt(v, int_type);
    if (type->isFloatingPointTy()) return b.CreateBitCast(v, int_type);
    return v;
  };
  Value* t = to_int(if_true);
  Value* f = to_int(if_false);
  Value* mask = b.CreateNeg(b.CreateZExt(cond, int_type), "vx.mask");
  Value* r = b.CreateXor(f, b.CreateAnd(b.CreateXor(t, f), mask), "vx.blend");
  if (type->isPointerTy()) return b.CreateIntToPtr(r, type);
  if (type->isFloatingPointTy()) return b.CreateBitCast(r, type);
  return r;
}

bool blendable(Type* t) {
  return (t->isIntegerTy() && t->getIntegerBitWidth() <= 64) || t->isPointerTy() || t->isFloatTy() ||
         t->isDoubleTy();
}

// Selects and min/max on divergent values become arithmetic: RV32IMAF has no conditional move,
// so the backend would lower them to branches that no SPLIT guards.
bool remove_divergent_selects(Function& f, const Divergence& div) {
  SmallVector<Instruction*, 16> work;
  for (Instruction& i : instructions(f)) {
    if (auto* s = dyn_cast<SelectInst>(&i)) {
      if (s->getCondition()->getType()->isIntegerTy(1) && blendable(s->getType()) && div.divergent(*s)) {
        work.push_back(s);
      }
    } else if (auto* mm = dyn_cast<MinMaxIntrinsic>(&i)) {
      if (div.divergent(*mm) && blendable(mm->getType())) work.push_back(mm);
    }
  }
  for (Instruction* i : work) {
    IRBuilder<> b(i);
    Value* r = nullptr;
    if (auto* s = dyn_cast<SelectInst>(i)) {
      r = blend(b, s->getCondition(), s->getTrueValue(), s->getFalseValue());
    } else {
      auto* mm = cast<MinMaxIntrinsic>(i);
      Value* c = b.CreateICmp(mm->getPredicate(), mm->getLHS(), mm->getRHS());
      r = blend(b, c, mm->getLHS(), mm->getRHS());
    }
    r->takeName(i);
    i->replaceAllUsesWith(r);
    i->eraseFromParent();
  }
  return !work.empty();
}

class Inserter {
 public:
  explicit Inserter(Module& m) : ctx_(m.getContext()) {
    Type* i32 = Type::getInt32Ty(ctx_);
    Type* void_ = Type::getVoidTy(ctx_);
    split_ = InlineAsm::get(FunctionType::get(i32, {i32}, false), ".insn r 0x0B, 2, 0, $0, $1, x0", "=r,r,~{memory}",
                            true);
    join_ = InlineAsm::get(FunctionType::get(void_, {i32}, false), ".insn r 0x0B, 3, 0, x0, $0, x0", "r,~{memory}",
                           true);
    pred_ = InlineAsm::get(FunctionType::get(void_, {i32, i32}, false), ".insn r 0x0B, 5, 0, x0, $0, $1",
                           "r,r,~{memory}", true);
    tmask_ = InlineAsm::get(FunctionType::get(i32, {}, false), "csrr $0, 0xCC4", "=r,~{memory}", true);
  }

  CallInst* call(InlineAsm* fn, ArrayRef<Value*> args, Instruction* before, const DebugLoc& loc) {
    CallInst* c = CallInst::Create(fn->getFunctionType(), fn, args, "", before);
    c->setConvergent();
    c->addFnAttr(Attribute::NoDuplicate);
    c->setDebugLoc(loc);
    return c;
  }

  InlineAsm* split_;
  InlineAsm* join_;
  InlineAsm* pred_;
  InlineAsm* tmask_;

 private:
  LLVMContext& ctx_;
};

// Loops whose exit is divergent: read the thread mask before the loop; before the exiting
// branch, PRED keeps the lanes that stay in the loop. When no lane stays, PRED restores the
// mask and every lane (each with its own last exit condition, true) leaves together.
void predicate_loop(Loop& loop, BasicBlock* exiting, Inserter& ins, DominatorTree& dt, LoopInfo& li) {
  BasicBlock* preheader = loop.getLoopPreheader();
  if (preheader == nullptr) preheader = InsertPreheaderForLoop(&loop, &dt, &li, nullptr, false);
  if (preheader == nullptr) refuse(*loop.getHeader()->getFirstNonPHI(), "a divergent loop without a preheader");
  auto* br = cast<BranchInst>(exiting->getTerminator());
  const DebugLoc loc = br->getDebugLoc();
  CallInst* mask = ins.call(ins.tmask_, {}, preheader->getTerminator(), loc);
  IRBuilder<> b(br);
  Value* stay = loop.contains(br->getSuccessor(0)) ? br->getCondition() : b.CreateNot(br->getCondition());
  Value* stay32 = b.CreateZExt(stay, b.getInt32Ty(), "vx.stay");
  ins.call(ins.pred_, {stay32, mask}, br, loc);
}

// Blocks inside the region of the branch in `head`: reachable from it without passing `ipdom`
// or a back edge of a loop that contains `head`.
void region_preds_of(BasicBlock* head, BasicBlock* ipdom, LoopInfo& li, SmallVectorImpl<BasicBlock*>& preds) {
  SmallPtrSet<BasicBlock*, 32> seen;
  SmallVector<BasicBlock*, 32> work = {head};
  seen.insert(head);
  const Loop* loop = li.getLoopFor(head);
  while (!work.empty()) {
    BasicBlock* bb = work.pop_back_val();
    for (BasicBlock* succ : successors(bb)) {
      if (succ == ipdom) {
        if (!is_contained(preds, bb)) preds.push_back(bb);
        continue;
      }
      if (loop != nullptr && loop->contains(succ) && li.isLoopHeader(succ) && li.getLoopFor(succ)->contains(loop)) {
        continue;  // a back edge
      }
      if (seen.insert(succ).second) work.push_back(succ);
    }
  }
}

void wrap_branch(BasicBlock* head, Inserter& ins, DominatorTree& dt, PostDominatorTree& pdt, LoopInfo& li) {
  auto* br = cast<BranchInst>(head->getTerminator());
  DomTreeNode* node = pdt.getNode(head);
  BasicBlock* ipdom = node != nullptr && node->getIDom() != nullptr ? node->getIDom()->getBlock() : nullptr;
  if (ipdom == nullptr) refuse(*br, "a divergent branch with no post-dominator (a path that never returns)");
  const DebugLoc loc = br->getDebugLoc();
  IRBuilder<> b(br);
  // The condition gets a second use, which also keeps SelectionDAG from splitting an and/or
  // condition into two branches.
  Value* cond32 = b.CreateZExt(br->getCondition(), b.getInt32Ty(), "vx.cond");
  CallInst* token = ins.call(ins.split_, {cond32}, br, loc);

  SmallVector<BasicBlock*, 8> preds;
  region_preds_of(head, ipdom, li, preds);
  BasicBlock* stub = SplitBlockPredecessors(ipdom, preds, "vx.join", &dt, &li, nullptr, false);
  if (stub == nullptr) refuse(*br, "cannot place the JOIN of a divergent branch");
  if (!dt.dominates(head, stub)) refuse(*br, "a divergent region with a second entry");
  ins.call(ins.join_, {token}, stub->getTerminator(), loc);
}

// Runs a pass even on optnone (-O0) functions, which the pass instrumentation would skip:
// -O0 code diverges like any other.
template <typename P>
struct Required : PassInfoMixin<Required<P>> {
  P pass;
  PreservedAnalyses run(Function& f, FunctionAnalysisManager& fam) { return pass.run(f, fam); }
  static bool isRequired() { return true; }
};

struct VortexDivergence : PassInfoMixin<VortexDivergence> {
  static bool isRequired() { return true; }
  PreservedAnalyses run(Module& m, ModuleAnalysisManager& mam) {
    auto& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
    const auto bodies = spawned_bodies(m);
    Inserter ins(m);
    bool changed = false;
    for (Function& f : m) {
      if (f.isDeclaration()) continue;
      changed |= run_on(f, bodies.contains(&f), ins, fam);
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

  static bool any_divergent_branch(Function& f, const Divergence& div) {
    for (BasicBlock& bb : f) {
      if (div.divergent_branch(bb)) return true;
      if (isa<SwitchInst>(bb.getTerminator()) && div.divergent(*cast<SwitchInst>(bb.getTerminator())->getCondition())) {
        return true;
      }
      if (isa<IndirectBrInst>(bb.getTerminator())) return true;
    }
    return false;
  }

  static bool run_on(Function& f, bool uniform_args, Inserter& ins, FunctionAnalysisManager& fam) {
    bool changed = false;
    {
      Divergence div(f, uniform_args);
      changed |= remove_divergent_selects(f, div);
      if (!any_divergent_branch(f, div)) {
        if (changed) fam.invalidate(f, PreservedAnalyses::none());
        return changed;
      }
    }
    // Structured control flow: one exit per function and per loop, reducible loops, nested
    // single-entry single-exit regions.
    FunctionPassManager fpm;
    fpm.addPass(Required<LowerSwitchPass>());
    fpm.addPass(Required<UnifyFunctionExitNodesPass>());
    fpm.addPass(Required<FixIrreduciblePass>());
    fpm.addPass(Required<UnifyLoopExitsPass>());
    fpm.addPass(Required<StructurizeCFGPass>());
    fam.invalidate(f, PreservedAnalyses::none());
    fpm.run(f, fam);
    fam.invalidate(f, PreservedAnalyses::none());

    Divergence div(f, uniform_args);
    remove_divergent_selects(f, div);  // structurizing adds phis, not selects; harmless
    LoopInfo& li = div.li();
    DominatorTree& dt = div.dt();
    PostDominatorTree& pdt = div.pdt();

    // Classify: a divergent branch that leaves its loop is that loop's exit (predicated);
    // every other divergent branch gets SPLIT/JOIN.
    SmallVector<BasicBlock*, 16> branches;
    SmallVector<std::pair<Loop*, BasicBlock*>, 8> loops;
    for (BasicBlock* bb : depth_first(&f.getEntryBlock())) {
      if (!div.divergent_branch(*bb)) {
        if (auto* sw = dyn_cast<SwitchInst>(bb->getTerminator()); sw != nullptr && div.divergent(*sw->getCondition())) {
          refuse(*sw, "a divergent switch survived LowerSwitch");
        }
        continue;
      }
      Loop* loop = li.getLoopFor(bb);
      bool exits = false;
      for (BasicBlock* succ : successors(bb)) exits |= loop != nullptr && !loop->contains(succ);
      if (!exits) {
        branches.push_back(bb);
        continue;
      }
      // The branch may leave several loops at once; every loop it leaves is predicated.
      SmallVector<BasicBlock*, 4> exiting;
      loop->getExitingBlocks(exiting);
      if (exiting.size() != 1) refuse(*bb->getTerminator(), "a loop with a divergent exit and several exiting blocks");
      Loop* outer = loop->getParentLoop();
      for (BasicBlock* succ : successors(bb)) {
        if (outer != nullptr && !outer->contains(succ)) refuse(*bb->getTerminator(), "a divergent exit from nested loops");
      }
      loops.emplace_back(loop, bb);
    }
    for (auto& [loop, exiting] : loops) predicate_loop(*loop, exiting, ins, dt, li);
    pdt.recalculate(f);
    // Innermost regions first, so that an outer JOIN lands after the inner ones.
    for (auto it = branches.rbegin(); it != branches.rend(); ++it) {
      wrap_branch(*it, ins, dt, pdt, li);
      pdt.recalculate(f);
    }
    fam.invalidate(f, PreservedAnalyses::none());
    return true;
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "vortex-divergence", "1", [](PassBuilder& pb) {
            pb.registerPipelineStartEPCallback(
                [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(MarkVortexConvergent()); });
            pb.registerOptimizerLastEPCallback(
                [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(VortexDivergence()); });
            pb.registerPipelineParsingCallback(
                [](StringRef name, ModulePassManager& mpm, ArrayRef<PassBuilder::PipelineElement>) {
                  if (name == "vortex-divergence") {
                    mpm.addPass(MarkVortexConvergent());
                    mpm.addPass(VortexDivergence());
                    return true;
                  }
                  return false;
                });
          }};
}
