from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.pending import Pending
from ...models.problem import Problem
from ...types import File, FileTypes
from ...types import UNSET, Unset
from io import BytesIO
from typing import cast



def _get_kwargs(
    point_cloud_id: str,
    *,
    format_: str | Unset = UNSET,
    version: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    bbox_crs: str | Unset = UNSET,
    classes: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["format"] = format_

    params["version"] = version

    params["bbox"] = bbox

    params["bbox-crs"] = bbox_crs

    params["classes"] = classes


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/pointcloud/{point_cloud_id}/download".format(point_cloud_id=quote(str(point_cloud_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | File | Pending | Problem:
    if response.status_code == 200:
        response_200 = File(
             payload = BytesIO(response.content)
        )



        return response_200

    if response.status_code == 202:
        response_202 = Pending.from_dict(response.json())



        return response_202

    if response.status_code == 206:
        response_206 = cast(Any, None)
        return response_206

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 416:
        response_416 = Problem.from_dict(response.json())



        return response_416

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | File | Pending | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,
    format_: str | Unset = UNSET,
    version: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    bbox_crs: str | Unset = UNSET,
    classes: str | Unset = UNSET,

) -> Response[Any | File | Pending | Problem]:
    """ 
    Args:
        point_cloud_id (str):
        format_ (str | Unset):
        version (str | Unset):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        classes (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Pending | Problem]
     """


    kwargs = _get_kwargs(
        point_cloud_id=point_cloud_id,
format_=format_,
version=version,
bbox=bbox,
bbox_crs=bbox_crs,
classes=classes,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,
    format_: str | Unset = UNSET,
    version: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    bbox_crs: str | Unset = UNSET,
    classes: str | Unset = UNSET,

) -> Any | File | Pending | Problem | None:
    """ 
    Args:
        point_cloud_id (str):
        format_ (str | Unset):
        version (str | Unset):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        classes (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Pending | Problem
     """


    return sync_detailed(
        point_cloud_id=point_cloud_id,
client=client,
format_=format_,
version=version,
bbox=bbox,
bbox_crs=bbox_crs,
classes=classes,

    ).parsed

async def asyncio_detailed(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,
    format_: str | Unset = UNSET,
    version: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    bbox_crs: str | Unset = UNSET,
    classes: str | Unset = UNSET,

) -> Response[Any | File | Pending | Problem]:
    """ 
    Args:
        point_cloud_id (str):
        format_ (str | Unset):
        version (str | Unset):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        classes (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Pending | Problem]
     """


    kwargs = _get_kwargs(
        point_cloud_id=point_cloud_id,
format_=format_,
version=version,
bbox=bbox,
bbox_crs=bbox_crs,
classes=classes,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,
    format_: str | Unset = UNSET,
    version: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    bbox_crs: str | Unset = UNSET,
    classes: str | Unset = UNSET,

) -> Any | File | Pending | Problem | None:
    """ 
    Args:
        point_cloud_id (str):
        format_ (str | Unset):
        version (str | Unset):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        classes (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Pending | Problem
     """


    return (await asyncio_detailed(
        point_cloud_id=point_cloud_id,
client=client,
format_=format_,
version=version,
bbox=bbox,
bbox_crs=bbox_crs,
classes=classes,

    )).parsed
