from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.stac_item import StacItem
from ...models.stac_item_patch import StacItemPatch
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    cid: str,
    iid: str,
    *,
    body: StacItemPatch,
    if_match: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/eo/collections/{cid}/items/{iid}".format(cid=quote(str(cid), safe=""),iid=quote(str(iid), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | StacItem:
    if response.status_code == 200:
        response_200 = StacItem.from_dict(response.json())



        return response_200

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())



        return response_412

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | StacItem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,
    body: StacItemPatch,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | StacItem]:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItemPatch): A JSON merge patch (RFC 7396) of a STAC Item Example: {'properties':
            {'eo:cloud_cover': 12.5}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItem]
     """


    kwargs = _get_kwargs(
        cid=cid,
iid=iid,
body=body,
if_match=if_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,
    body: StacItemPatch,
    if_match: None | str | Unset = UNSET,

) -> Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItemPatch): A JSON merge patch (RFC 7396) of a STAC Item Example: {'properties':
            {'eo:cloud_cover': 12.5}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItem
     """


    return sync_detailed(
        cid=cid,
iid=iid,
client=client,
body=body,
if_match=if_match,

    ).parsed

async def asyncio_detailed(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,
    body: StacItemPatch,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | StacItem]:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItemPatch): A JSON merge patch (RFC 7396) of a STAC Item Example: {'properties':
            {'eo:cloud_cover': 12.5}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItem]
     """


    kwargs = _get_kwargs(
        cid=cid,
iid=iid,
body=body,
if_match=if_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,
    body: StacItemPatch,
    if_match: None | str | Unset = UNSET,

) -> Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItemPatch): A JSON merge patch (RFC 7396) of a STAC Item Example: {'properties':
            {'eo:cloud_cover': 12.5}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItem
     """


    return (await asyncio_detailed(
        cid=cid,
iid=iid,
client=client,
body=body,
if_match=if_match,

    )).parsed
