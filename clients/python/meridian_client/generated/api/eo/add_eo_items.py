from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.job_accepted import JobAccepted
from ...models.problem import Problem
from ...models.stac_item import StacItem
from ...models.stac_item_collection import StacItemCollection
from ...models.stac_item_upload import StacItemUpload
from typing import cast



def _get_kwargs(
    cid: str,
    *,
    body:    StacItem | StacItemCollection  |     StacItemUpload  | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/eo/collections/{cid}/items".format(cid=quote(str(cid), safe=""),),
    }

    if isinstance(body, (StacItem, StacItemCollection)):
        
        if isinstance(body, StacItem):
            _kwargs["json"] = body.to_dict()
        else:
            _kwargs["json"] = body.to_dict()


        headers["Content-Type"] = "application/json"
    if isinstance(body, StacItemUpload):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> JobAccepted | Problem | StacItem:
    if response.status_code == 201:
        response_201 = StacItem.from_dict(response.json())



        return response_201

    if response.status_code == 202:
        response_202 = JobAccepted.from_dict(response.json())



        return response_202

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[JobAccepted | Problem | StacItem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cid: str,
    *,
    client: AuthenticatedClient,
    body:    StacItem | StacItemCollection  |     StacItemUpload  | Unset = UNSET,

) -> Response[JobAccepted | Problem | StacItem]:
    """ 
    Args:
        cid (str):
        body (StacItem | StacItemCollection):  Example: {'assets': {'B8': {'eo:bands':
            [{'common_name': 'nir', 'name': 'B8'}], 'href': 'https://example.com/scene-1/B8.tif',
            'type': 'image/tiff; application=geotiff; profile=cloud-optimized'}}, 'bbox': [151.1,
            -33.9, 151.3, -33.8], 'geometry': {'coordinates': [[[151.1, -33.9], [151.3, -33.9],
            [151.3, -33.8], [151.1, -33.8], [151.1, -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1',
            'links': [], 'properties': {'datetime': '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0',
            'type': 'Feature'}.
        body (StacItemUpload): A part `item` (JSON: at least `id` and `datetime`, and the assets'
            `eo:bands`) and one GeoTIFF part per asset, named by the asset key Example: {'item':
            '{"id": "scene-1", "properties": {"datetime": "2017-11-21T00:00:00Z"}, "assets": {"B8":
            {"eo:bands": [{"name": "B8", "common_name": "nir"}]}}}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobAccepted | Problem | StacItem]
     """


    kwargs = _get_kwargs(
        cid=cid,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    cid: str,
    *,
    client: AuthenticatedClient,
    body:    StacItem | StacItemCollection  |     StacItemUpload  | Unset = UNSET,

) -> JobAccepted | Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        body (StacItem | StacItemCollection):  Example: {'assets': {'B8': {'eo:bands':
            [{'common_name': 'nir', 'name': 'B8'}], 'href': 'https://example.com/scene-1/B8.tif',
            'type': 'image/tiff; application=geotiff; profile=cloud-optimized'}}, 'bbox': [151.1,
            -33.9, 151.3, -33.8], 'geometry': {'coordinates': [[[151.1, -33.9], [151.3, -33.9],
            [151.3, -33.8], [151.1, -33.8], [151.1, -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1',
            'links': [], 'properties': {'datetime': '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0',
            'type': 'Feature'}.
        body (StacItemUpload): A part `item` (JSON: at least `id` and `datetime`, and the assets'
            `eo:bands`) and one GeoTIFF part per asset, named by the asset key Example: {'item':
            '{"id": "scene-1", "properties": {"datetime": "2017-11-21T00:00:00Z"}, "assets": {"B8":
            {"eo:bands": [{"name": "B8", "common_name": "nir"}]}}}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobAccepted | Problem | StacItem
     """


    return sync_detailed(
        cid=cid,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    cid: str,
    *,
    client: AuthenticatedClient,
    body:    StacItem | StacItemCollection  |     StacItemUpload  | Unset = UNSET,

) -> Response[JobAccepted | Problem | StacItem]:
    """ 
    Args:
        cid (str):
        body (StacItem | StacItemCollection):  Example: {'assets': {'B8': {'eo:bands':
            [{'common_name': 'nir', 'name': 'B8'}], 'href': 'https://example.com/scene-1/B8.tif',
            'type': 'image/tiff; application=geotiff; profile=cloud-optimized'}}, 'bbox': [151.1,
            -33.9, 151.3, -33.8], 'geometry': {'coordinates': [[[151.1, -33.9], [151.3, -33.9],
            [151.3, -33.8], [151.1, -33.8], [151.1, -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1',
            'links': [], 'properties': {'datetime': '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0',
            'type': 'Feature'}.
        body (StacItemUpload): A part `item` (JSON: at least `id` and `datetime`, and the assets'
            `eo:bands`) and one GeoTIFF part per asset, named by the asset key Example: {'item':
            '{"id": "scene-1", "properties": {"datetime": "2017-11-21T00:00:00Z"}, "assets": {"B8":
            {"eo:bands": [{"name": "B8", "common_name": "nir"}]}}}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobAccepted | Problem | StacItem]
     """


    kwargs = _get_kwargs(
        cid=cid,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    cid: str,
    *,
    client: AuthenticatedClient,
    body:    StacItem | StacItemCollection  |     StacItemUpload  | Unset = UNSET,

) -> JobAccepted | Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        body (StacItem | StacItemCollection):  Example: {'assets': {'B8': {'eo:bands':
            [{'common_name': 'nir', 'name': 'B8'}], 'href': 'https://example.com/scene-1/B8.tif',
            'type': 'image/tiff; application=geotiff; profile=cloud-optimized'}}, 'bbox': [151.1,
            -33.9, 151.3, -33.8], 'geometry': {'coordinates': [[[151.1, -33.9], [151.3, -33.9],
            [151.3, -33.8], [151.1, -33.8], [151.1, -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1',
            'links': [], 'properties': {'datetime': '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0',
            'type': 'Feature'}.
        body (StacItemUpload): A part `item` (JSON: at least `id` and `datetime`, and the assets'
            `eo:bands`) and one GeoTIFF part per asset, named by the asset key Example: {'item':
            '{"id": "scene-1", "properties": {"datetime": "2017-11-21T00:00:00Z"}, "assets": {"B8":
            {"eo:bands": [{"name": "B8", "common_name": "nir"}]}}}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobAccepted | Problem | StacItem
     """


    return (await asyncio_detailed(
        cid=cid,
client=client,
body=body,

    )).parsed
