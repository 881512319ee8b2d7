from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.classify_step import ClassifyStep
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.classify_classes import ClassifyClasses
  from ..models.classify_ground import ClassifyGround
  from ..models.classify_noise import ClassifyNoise





T = TypeVar("T", bound="ClassifyBody")



@_attrs_define
class ClassifyBody:
    """ The body of `POST /api/v1/pointcloud/{id}/classify` (every member optional; `{}` or no body
    runs every step with the defaults). Lengths are metres whatever the file's unit. The engine's
    parser (`meridian_pointcloud::pipeline::PipelineParams::from_json`) is the authority: an
    unknown member or a value out of range is a 422 with its JSON pointer.

        Example:
            {'classes': {'method': 'combined'}, 'ground': {'method': 'smrf', 'window': 24.0}}

        Attributes:
            classes (ClassifyClasses | Unset): The classes step.
            ground (ClassifyGround | Unset): The ground step: PDAL's `filters.smrf` or `filters.csf` names, and the raised-
                ground step.
            model (str | Unset): `default` (the configured model) or `meridian-pointcloud-classifier`.
            noise (ClassifyNoise | Unset): The noise step: PDAL's `filters.outlier` (and `filters.elm`).
            steps (list[ClassifyStep] | Unset): The steps that run (all by default); at least one.
     """

    classes: ClassifyClasses | Unset = UNSET
    ground: ClassifyGround | Unset = UNSET
    model: str | Unset = UNSET
    noise: ClassifyNoise | Unset = UNSET
    steps: list[ClassifyStep] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.classify_classes import ClassifyClasses # noqa: PLC0415
        from ..models.classify_ground import ClassifyGround # noqa: PLC0415
        from ..models.classify_noise import ClassifyNoise # noqa: PLC0415
        classes: dict[str, Any] | Unset = UNSET
        if not isinstance(self.classes, Unset):
            classes = self.classes.to_dict()

        ground: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ground, Unset):
            ground = self.ground.to_dict()

        model = self.model

        noise: dict[str, Any] | Unset = UNSET
        if not isinstance(self.noise, Unset):
            noise = self.noise.to_dict()

        steps: list[str] | Unset = UNSET
        if not isinstance(self.steps, Unset):
            steps = []
            for steps_item_data in self.steps:
                steps_item = steps_item_data.value
                steps.append(steps_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if classes is not UNSET:
            field_dict["classes"] = classes
        if ground is not UNSET:
            field_dict["ground"] = ground
        if model is not UNSET:
            field_dict["model"] = model
        if noise is not UNSET:
            field_dict["noise"] = noise
        if steps is not UNSET:
            field_dict["steps"] = steps

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.classify_classes import ClassifyClasses # noqa: PLC0415
        from ..models.classify_ground import ClassifyGround # noqa: PLC0415
        from ..models.classify_noise import ClassifyNoise # noqa: PLC0415
        d = dict(src_dict)
        _classes = d.pop("classes", UNSET)
        classes: ClassifyClasses | Unset
        if isinstance(_classes,  Unset):
            classes = UNSET
        else:
            classes = ClassifyClasses.from_dict(_classes)




        _ground = d.pop("ground", UNSET)
        ground: ClassifyGround | Unset
        if isinstance(_ground,  Unset):
            ground = UNSET
        else:
            ground = ClassifyGround.from_dict(_ground)




        model = d.pop("model", UNSET)

        _noise = d.pop("noise", UNSET)
        noise: ClassifyNoise | Unset
        if isinstance(_noise,  Unset):
            noise = UNSET
        else:
            noise = ClassifyNoise.from_dict(_noise)




        _steps = d.pop("steps", UNSET)
        steps: list[ClassifyStep] | Unset = UNSET
        if _steps is not UNSET:
            steps = []
            for steps_item_data in _steps:
                steps_item = ClassifyStep(steps_item_data)



                steps.append(steps_item)


        classify_body = cls(
            classes=classes,
            ground=ground,
            model=model,
            noise=noise,
            steps=steps,
        )

        return classify_body

