"""Request and response shapes of ``/api/projects/:id/materialized_properties/``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt

from ..store.materialized import MAX_KEY_LENGTH

__all__ = [
    "CLAIMED_KEY_PATTERN",
    "KEY_PATTERN",
    "MaterializedProperty",
    "MaterializedList",
    "MaterializeRequest",
    "AutoRequest",
    "AutoResult",
    "Use",
]

PropertyType = Literal["event", "person"]
# what a column's JSON path can hold: printable ASCII without quotes or backslashes (store.materialized)
KEY_PATTERN = r"^[ !#-&(-\[\]-~]+$"
# what a claim made by an earlier version may hold (other scripts were accepted then): still removable
CLAIMED_KEY_PATTERN = r"^[^\"'\\\x00-\x1f]+$"


class MaterializeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    property: str = Field(min_length=1, max_length=MAX_KEY_LENGTH, pattern=KEY_PATTERN, examples=["plan"])
    type: PropertyType = Field("event", description="An event property (default) or a person property")


def _whole_number(value: Any) -> Any:
    # JSON Schema's integer includes 75.0; text and booleans stay refused, as the schema says
    return int(value) if isinstance(value, float) and value.is_integer() else value


WholeNumber = Annotated[StrictInt, BeforeValidator(_whole_number)]


class AutoRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: WholeNumber | None = Field(None, ge=0, le=100, description="How many to keep; default: the server's setting")


class MaterializedProperty(BaseModel):
    property: str
    type: PropertyType
    column: str = Field(description="The column of events (or persons) that holds the value")
    state: Literal["backfilling", "ready"] = Field(description="Calculations read the column once it is ready")
    source: Literal["manual", "auto"] = Field(description="Asked for by hand, or chosen as most used")
    created_at: str
    backfill_remaining: int = Field(description="Rows still to fill while backfilling")
    uses_30_days: int = Field(description="Filters and breakdowns on it compiled in the last 30 days")


class Use(BaseModel):
    property: str
    type: PropertyType
    uses: int


class MaterializedList(BaseModel):
    results: list[MaterializedProperty]
    most_used: list[Use] = Field(description="The properties recent queries used most, as the automatic choice ranks")
    auto_limit: int = Field(description="How many the automatic choice keeps materialized")


class AutoResult(BaseModel):
    added: list[Use]
    dropped: list[Use]
    results: list[MaterializedProperty]
