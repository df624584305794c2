"""The screens' own words (doctor, verify, history, dialogs) in English and Chinese.

Results (a check's summary, a stage's label) come from the core and are shown
as they are; only the text a screen writes around them lives here. A key
missing from a language falls back to English, so a new string never shows
up blank.
"""

from __future__ import annotations

from typing import Any

EN: dict[str, str] = {
    # doctor
    "col_check": "check",
    "col_result": "result",
    "running": "running…",
    "checks_running": "The checks are still running.",
    "checking": "Checking {machine}…",
    "checking_n": "Checking {machine}… {done}/{total}",
    "counts": (
        "{fail} failed, {warn} warnings, {error} could not run, {ok} ok, {skip} skipped."
    ),
    "most_likely": "  Most likely: {ids}.",
    "no_cause": "  No KB cause named: see the failed checks.",
    "all_good": "  Nothing wrong found: F4 runs the GPU test.",
    "enter_details": "  Enter: details.",
    "check_running": "This check is still running.",
    "fix": "Fix",
    "evidence": "Evidence",
    "kb_entries": "Knowledge-base entries",
    "confirms": "confirms",
    "rules_out": "rules out",
    "no_entry": "This check names no KB entry.",
    "status_ok": "ok",
    "status_warn": "warning",
    "status_fail": "failed",
    "status_error": "could not run",
    "status_skip": "skipped",
    # machines
    "this_machine": "this machine",
    "snapshot": "snapshot {name}",
    "demo_machine": "demo machine (recorded RX 6700 XT)",
    # verify
    "gpu_test": "GPU test",
    "not_run": "Not run yet.",
    "level": "GPU test · level {level}",
    "recorded_title": " · recorded result of the demo machine (no GPU here)",
    "finishing": "finishing",
    "of_peak": " of {peak:g} peak ({ratio:.0%})",
    "no_peak": " (no peak known)",
    "passed": "GPU test passed.",
    "failed": "GPU test failed.",
    "failed_at": "GPU test failed at {stage} ({kind}): {message}",
    "note": "note: ",
    "recorded_note": "(recorded: this is the demo machine's result, not a run on this machine)",
    "target_recorded": (
        "Showing the demo machine's recorded result (no GPU here). p: another Python."
    ),
    "target": "Testing the torch of {python} in a child process. p: another Python.",
    "verify_running": "The GPU test is still running.",
    # history
    "col_id": "id",
    "col_action": "action",
    "col_status": "status",
    "col_values": "values",
    "journal": "Journal: {path}",
    "no_fix_yet": "No fix applied yet. {where}",
    "nothing_to_undo": "Nothing to undo.",
    "not_undoable": "{id} is {status}; nothing to undo.",
    "undo_q": "Undo {id}?",
    "undo": "Undo",
    "undone": "Undone {id} ({action}).",
    # dialogs
    "apply": "Apply",
    "cancel_n": "Cancel (n)",
    "error_hint": "esc close · c copy",
    "copied": "copied to the clipboard",
    "help": "Help",
    "help_hint": "esc, q or F1 closes · ↑↓ scroll",
    "which_python": "Which Python runs your training?",
    "python_detail": (
        "The path of its interpreter, e.g. ~/venvs/train/bin/python or the output of "
        "`which python` in that environment. Enter uses it, esc cancels."
    ),
    # fix
    "fix_title": "Fix: {text}",
    "fix_sub": "{cause}action {action} · risk {risk} · planned for {target} · HOME {home}",
    "fix_for": "for {id} · ",
    "plan_title": "Plan (nothing has changed yet)",
    "plan_applied": "Plan (applied)",
    "plan_undone": "Plan (undone; a applies it again)",
    "computing_plan": "Computing the plan…",
    "output": "Output",
    "cannot_plan": "This fix cannot be planned here: {error}",
    "nothing_to_change": "Nothing to change: this fix is already in place.",
    "undone_again": "Undone: everything this fix changed is back as it was. a applies it again.",
    "press_a": "Press a to apply (you will be asked first), esc to go back.",
    "no_plan": "There is no plan to apply.",
    "already_applied": "Already applied; u undoes it.",
    "apply_detail": "{steps} change(s) to {target}; a backup is kept and u undoes it.",
    "needs_root": "\nSome steps need root: rocmfix pauses and runs sudo in this terminal.",
    "apply_q": "Apply this fix?",
    "nothing_changed": "Nothing was changed.",
    "applying": "applying {id} ({action})…",
    "applied_log": "applied {id}; backups and journal in {path}",
    "applied_running": "Applied. Running the GPU test to see whether it worked…",
    "verify_already": "The GPU test is already running.",
    "recovered": "RECOVERED: the GPU test passes with this fix. u undoes it.",
    "next_open": " Next: press n to open {id}.",
    "still_failing": "STILL FAILING after the fix.{next} u undoes the fix.",
    "nothing_applied": "Nothing applied from this screen yet (see History, F6).",
    "undone_log": "undone {id}: every file is back as it was",
    "wait_fix": "Wait for the fix to finish before leaving.",
    "target_demo": "the demo machine's throwaway HOME",
    "target_snapshot": "this machine (not snapshot {name}, which the doctor reads)",
    "target_here": "this machine",
    # app
    "fix_busy": "A fix is being applied; quit again once it has finished.",
    "failed_unexpectedly": "{what} failed unexpectedly",
    "a_task": "A task",
}

ZH: dict[str, str] = {
    "col_check": "检查",
    "col_result": "结果",
    "running": "运行中…",
    "checks_running": "检查仍在运行。",
    "checking": "正在检查{machine}…",
    "checking_n": "正在检查{machine}… {done}/{total}",
    "counts": "{fail} 项失败，{warn} 项警告，{error} 项无法运行，{ok} 项正常，{skip} 项跳过。",
    "most_likely": "最可能的原因：{ids}。",
    "no_cause": "没有对应的知识库原因：请查看失败的检查。",
    "all_good": "未发现问题：按 F4 运行 GPU 测试。",
    "enter_details": "按 enter 查看详情。",
    "check_running": "这项检查仍在运行。",
    "fix": "修复",
    "evidence": "证据",
    "kb_entries": "知识库条目",
    "confirms": "证实",
    "rules_out": "排除",
    "no_entry": "这项检查不涉及任何知识库条目。",
    "status_ok": "正常",
    "status_warn": "警告",
    "status_fail": "失败",
    "status_error": "无法运行",
    "status_skip": "跳过",
    "this_machine": "本机",
    "snapshot": "快照 {name}",
    "demo_machine": "演示机器（录制的 RX 6700 XT）",
    "gpu_test": "GPU 测试",
    "not_run": "尚未运行。",
    "level": "GPU 测试 · 级别 {level}",
    "recorded_title": " · 演示机器的录制结果（本机没有 GPU）",
    "finishing": "收尾中",
    "of_peak": "，峰值 {peak:g} 的 {ratio:.0%}",
    "no_peak": "（峰值未知）",
    "passed": "GPU 测试通过。",
    "failed": "GPU 测试失败。",
    "failed_at": "GPU 测试在{stage}阶段失败（{kind}）：{message}",
    "note": "注：",
    "recorded_note": "（录制结果：这是演示机器的结果，并非在本机运行）",
    "target_recorded": "显示演示机器的录制结果（本机没有 GPU）。按 p 换一个 Python。",
    "target": "在子进程中测试 {python} 的 torch。按 p 换一个 Python。",
    "verify_running": "GPU 测试仍在运行。",
    "col_id": "编号",
    "col_action": "操作",
    "col_status": "状态",
    "col_values": "取值",
    "journal": "修复记录：{path}",
    "no_fix_yet": "尚未应用任何修复。{where}",
    "nothing_to_undo": "没有可撤销的修复。",
    "not_undoable": "{id} 的状态是 {status}，无可撤销。",
    "undo_q": "撤销 {id}？",
    "undo": "撤销",
    "undone": "已撤销 {id}（{action}）。",
    "apply": "应用",
    "cancel_n": "取消 (n)",
    "error_hint": "esc 关闭 · c 复制",
    "copied": "已复制到剪贴板",
    "help": "帮助",
    "help_hint": "esc、q 或 F1 关闭 · ↑↓ 滚动",
    "which_python": "哪个 Python 运行你的训练？",
    "python_detail": (
        "填写它的解释器路径，例如 ~/venvs/train/bin/python，或在该环境中运行 "
        "`which python` 得到的路径。按 enter 使用，esc 取消。"
    ),
    "fix_title": "修复：{text}",
    "fix_sub": "{cause}操作 {action} · 风险 {risk} · 计划用于{target} · HOME {home}",
    "fix_for": "针对 {id} · ",
    "plan_title": "计划（尚未做任何改动）",
    "plan_applied": "计划（已应用）",
    "plan_undone": "计划（已撤销；按 a 重新应用）",
    "computing_plan": "正在计算计划…",
    "output": "输出",
    "cannot_plan": "无法在这里为这项修复制定计划：{error}",
    "nothing_to_change": "无需改动：这项修复已经生效。",
    "undone_again": "已撤销：这项修复改动的一切都已恢复原样。按 a 重新应用。",
    "press_a": "按 a 应用（会先征求确认），按 esc 返回。",
    "no_plan": "没有可应用的计划。",
    "already_applied": "已经应用；按 u 撤销。",
    "apply_detail": "对{target}做 {steps} 处改动；会保留备份，按 u 可撤销。",
    "needs_root": "\n部分步骤需要 root 权限：rocmfix 会暂停并在此终端中运行 sudo。",
    "apply_q": "应用这项修复？",
    "nothing_changed": "没有做任何改动。",
    "applying": "正在应用 {id}（{action}）…",
    "applied_log": "已应用 {id}；备份和修复记录位于 {path}",
    "applied_running": "已应用。正在运行 GPU 测试，看看是否奏效…",
    "verify_already": "GPU 测试已在运行。",
    "recovered": "已恢复：应用这项修复后 GPU 测试通过。按 u 撤销。",
    "next_open": "下一步：按 n 打开 {id}。",
    "still_failing": "应用修复后仍然失败。{next}按 u 撤销这项修复。",
    "nothing_applied": "尚未从此界面应用任何修复（见历史，F6）。",
    "undone_log": "已撤销 {id}：每个文件都已恢复原样",
    "wait_fix": "请等修复完成后再离开。",
    "target_demo": "演示机器的临时 HOME",
    "target_snapshot": "本机（而非诊断读取的快照 {name}）",
    "target_here": "本机",
    "fix_busy": "正在应用修复；完成后再退出。",
    "failed_unexpectedly": "{what}意外失败",
    "a_task": "一项任务",
}

TEXTS: dict[str, dict[str, str]] = {"en": EN, "zh": ZH}


def t(lang: str, key: str, **values: Any) -> str:
    """The screen string ``key`` in ``lang`` (English when it has no translation)."""
    text = TEXTS.get(lang, EN).get(key) or EN[key]
    return text.format(**values) if values else text


def lang_of(node: Any) -> str:
    """The session language of a mounted node's app (``en`` outside a RocmfixApp)."""
    try:
        session = getattr(node.app, "session", None)
    except Exception:  # noqa: BLE001 - no active app (a widget built outside one)
        return "en"
    return str(getattr(session, "lang", "en"))
