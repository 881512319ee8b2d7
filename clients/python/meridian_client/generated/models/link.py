from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.link_method import LinkMethod
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.link_body import LinkBody





T = TypeVar("T", bound="Link")



@_attrs_define
class Link:
    """ A link (RFC 8288 as OGC API and STAC write it)

        Attributes:
            href (str): Absolute URL or a path on this server
            rel (str):
            body (LinkBody | Unset): STAC POST search links: the body to send
            merge (bool | Unset):
            method (LinkMethod | Unset): STAC search links: the method to follow with
            title (str | Unset):
            type_ (str | Unset): Media type of the target
     """

    href: str
    rel: str
    body: LinkBody | Unset = UNSET
    merge: bool | Unset = UNSET
    method: LinkMethod | Unset = UNSET
    title: str | Unset = UNSET
    type_: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link_body import LinkBody # noqa: PLC0415
        href = self.href

        rel = self.rel

        body: dict[str, Any] | Unset = UNSET
        if not isinstance(self.body, Unset):
            body = self.body.to_dict()

        merge = self.merge

        method: str | Unset = UNSET
        if not isinstance(self.method, Unset):
            method = self.method.value


        title = self.title

        type_ = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "href": href,
            "rel": rel,
        })
        if body is not UNSET:
            field_dict["body"] = body
        if merge is not UNSET:
            field_dict["merge"] = merge
        if method is not UNSET:
            field_dict["method"] = method
        if title is not UNSET:
            field_dict["title"] = title
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link_body import LinkBody # noqa: PLC0415
        d = dict(src_dict)
        href = d.pop("href")

        rel = d.pop("rel")

        _body = d.pop("body", UNSET)
        body: LinkBody | Unset
        if isinstance(_body,  Unset):
            body = UNSET
        else:
            body = LinkBody.from_dict(_body)




        merge = d.pop("merge", UNSET)

        _method = d.pop("method", UNSET)
        method: LinkMethod | Unset
        if isinstance(_method,  Unset):
            method = UNSET
        else:
            method = LinkMethod(_method)




        title = d.pop("title", UNSET)

        type_ = d.pop("type", UNSET)

        link = cls(
            href=href,
            rel=rel,
            body=body,
            merge=merge,
            method=method,
            title=title,
            type_=type_,
        )


        link.additional_properties = d
        return link

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
