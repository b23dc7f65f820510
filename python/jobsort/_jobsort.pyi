"""Type stubs of the native module (python/src/). The public API is `jobsort` itself."""

from typing import Optional, Sequence

import numpy as np
import numpy.typing as npt

__version__: str

class JobsortError(ValueError): ...

class FormulaError(JobsortError):
    diagnostics: list[Diagnostic]
    source: str
    span: Optional[tuple[int, int]]
    code: Optional[str]
    message: Optional[str]

class InputError(JobsortError): ...

class Diagnostic:
    """One diagnostic: severity ("error", "warning", "note"), stable code, message, byte span
    into the formula, labelled spans and notes."""

    severity: str
    code: str
    message: str
    span: tuple[int, int]
    labels: list[tuple[tuple[int, int], str]]
    notes: list[str]

class Report:
    """What `check` found; str() is the text `jobsort check` prints."""

    @property
    def valid(self) -> bool: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def range(self) -> Optional[tuple[float, float]]: ...
    @property
    def source(self) -> str: ...
    def to_json(self) -> str: ...
    def __bool__(self) -> bool: ...

class Formula:
    """A compiled formula: compile once, evaluate many times (thread-safe)."""

    @property
    def source(self) -> str: ...
    @property
    def inputs(self) -> list[str]: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def range(self) -> Optional[tuple[float, float]]: ...
    @property
    def engine(self) -> str: ...
    @property
    def compat(self) -> Optional[str]: ...
    # Added by the `jobsort` package (see jobsort.Evaluation).
    def evaluate(self, data: object, n: Optional[int] = None) -> object: ...
    def _evaluate(
        self, columns: Sequence[npt.NDArray[np.float64]], n: int
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8], list[int]]: ...

class Jobs:
    """Jobs read from a file (with fairshare keywords when a tree was given)."""

    def __len__(self) -> int: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def ids(self) -> list[str]: ...
    @property
    def submit(self) -> Optional[npt.NDArray[np.float64]]: ...
    @property
    def has_tree(self) -> bool: ...
    def fair_share_ranks(self) -> Optional[list[int]]: ...
    def to_pandas(self) -> object: ...
    def _evaluate(self, formula: Formula) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8]]: ...
    def _absent(self, formula: Formula) -> list[str]: ...
    def _columns(self) -> dict[str, object]: ...

class Trace:
    """A workload trace read once."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def machine(self) -> tuple[Optional[int], Optional[int]]: ...
    def __len__(self) -> int: ...
    def report(self) -> dict[str, object]: ...
    def to_pandas(self) -> object: ...
    def _report(self) -> dict[str, object]: ...
    def _columns(self) -> dict[str, object]: ...

def check_formula(
    text: str, resources: list[tuple[str, str]], resourcedef: Optional[str], compat: Optional[str], deny_warnings: bool
) -> Report: ...
def compile_formula(
    text: str,
    resources: list[tuple[str, str]],
    resourcedef: Optional[str],
    engine: str,
    compat: Optional[str],
    deny_warnings: bool,
) -> Formula: ...
def error_messages() -> list[tuple[int, str, str]]: ...
def rank_values(
    values: npt.NDArray[np.float64],
    submit: Optional[npt.NDArray[np.float64]],
    ids: Optional[list[str]],
    fair_share: Optional[list[int]],
    threshold: Optional[float],
    top: Optional[int],
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.float64], npt.NDArray[np.bool_]]: ...
def load_jobs(
    path: str,
    format: str,
    resources: list[tuple[str, str]],
    resourcedef: Optional[str],
    strict: bool,
    entity: str,
    tree: dict[str, object],
) -> Jobs: ...
def fairshare_rows(tree: dict[str, object]) -> tuple[dict[str, object], list[str], str]: ...
def load_trace(path: str) -> Trace: ...
def simulate_trace(
    trace: Trace, formulas: Sequence[Formula], spec: dict[str, object]
) -> tuple[dict[str, object], list[dict[str, object]]]: ...
def replay_recording(
    recording: Optional[str],
    trace: Optional[Trace],
    verify_run: bool,
    formula: Optional[Formula],
    policy_name: str,
    nodes: Optional[int],
    cores: Optional[int],
    per_round: bool,
    resources: list[tuple[str, str]],
    resourcedef: Optional[str],
    engine: str,
    compat: Optional[str],
) -> str: ...
def forecast(
    snapshot: str,
    formula: Optional[str] = None,
    history: Optional[str] = None,
    policy: Optional[str] = None,
    strict: bool = False,
) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The header of `jobsort forecast --format json` and its waiting jobs in rank order, each
    a dict with the CLI's field names (less `terms` and `computed_value`)."""
    ...
def why(
    snapshot: str,
    jobid: str,
    formula: Optional[str] = None,
    history: Optional[str] = None,
    policy: Optional[str] = None,
    strict: bool = False,
) -> dict[str, object]:
    """One waiting job's dict (as in `forecast`) with the header's fields beside it; InputError
    when the job is not waiting."""
    ...
