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
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    cid: str,
    iid: str,
    *,
    body: StacItem,
    if_match: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
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
    body: StacItem,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | StacItem]:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItem): A STAC Item (1.0): a GeoJSON Feature with `datetime` and assets Example:
            {'assets': {'B8': {'eo:bands': [{'common_name': 'nir', 'name': 'B8'}], 'href':
            'https://example.com/scene-1/B8.tif', 'type': 'image/tiff; application=geotiff;
            profile=cloud-optimized'}}, 'bbox': [151.1, -33.9, 151.3, -33.8], 'geometry':
            {'coordinates': [[[151.1, -33.9], [151.3, -33.9], [151.3, -33.8], [151.1, -33.8], [151.1,
            -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1', 'links': [], 'properties': {'datetime':
            '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0', 'type': 'Feature'}.

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
    body: StacItem,
    if_match: None | str | Unset = UNSET,

) -> Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItem): A STAC Item (1.0): a GeoJSON Feature with `datetime` and assets Example:
            {'assets': {'B8': {'eo:bands': [{'common_name': 'nir', 'name': 'B8'}], 'href':
            'https://example.com/scene-1/B8.tif', 'type': 'image/tiff; application=geotiff;
            profile=cloud-optimized'}}, 'bbox': [151.1, -33.9, 151.3, -33.8], 'geometry':
            {'coordinates': [[[151.1, -33.9], [151.3, -33.9], [151.3, -33.8], [151.1, -33.8], [151.1,
            -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1', 'links': [], 'properties': {'datetime':
            '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0', 'type': 'Feature'}.

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
    body: StacItem,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | StacItem]:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItem): A STAC Item (1.0): a GeoJSON Feature with `datetime` and assets Example:
            {'assets': {'B8': {'eo:bands': [{'common_name': 'nir', 'name': 'B8'}], 'href':
            'https://example.com/scene-1/B8.tif', 'type': 'image/tiff; application=geotiff;
            profile=cloud-optimized'}}, 'bbox': [151.1, -33.9, 151.3, -33.8], 'geometry':
            {'coordinates': [[[151.1, -33.9], [151.3, -33.9], [151.3, -33.8], [151.1, -33.8], [151.1,
            -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1', 'links': [], 'properties': {'datetime':
            '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0', 'type': 'Feature'}.

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
    body: StacItem,
    if_match: None | str | Unset = UNSET,

) -> Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        iid (str):
        if_match (None | str | Unset):
        body (StacItem): A STAC Item (1.0): a GeoJSON Feature with `datetime` and assets Example:
            {'assets': {'B8': {'eo:bands': [{'common_name': 'nir', 'name': 'B8'}], 'href':
            'https://example.com/scene-1/B8.tif', 'type': 'image/tiff; application=geotiff;
            profile=cloud-optimized'}}, 'bbox': [151.1, -33.9, 151.3, -33.8], 'geometry':
            {'coordinates': [[[151.1, -33.9], [151.3, -33.9], [151.3, -33.8], [151.1, -33.8], [151.1,
            -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1', 'links': [], 'properties': {'datetime':
            '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0', 'type': 'Feature'}.

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
