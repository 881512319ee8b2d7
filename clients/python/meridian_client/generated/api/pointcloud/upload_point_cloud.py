from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.point_cloud_upload import PointCloudUpload
from ...models.problem import Problem
from ...models.upload_accepted import UploadAccepted
from ...types import File, FileTypes
from ...types import UNSET, Unset
from io import BytesIO
from typing import cast



def _get_kwargs(
    *,
    body:    File  |     File  |     File  |     PointCloudUpload  | Unset = UNSET,
    name: str | Unset = UNSET,
    crs: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    params["name"] = name

    params["crs"] = crs


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/pointcloud/upload",
        "params": params,
    }

    if isinstance(body, File):
        _kwargs["content"] = body.payload
        headers["Content-Type"] = "application/octet-stream"
    if isinstance(body, File):
        _kwargs["content"] = body.payload
        headers["Content-Type"] = "application/vnd.las"
    if isinstance(body, File):
        _kwargs["content"] = body.payload
        headers["Content-Type"] = "application/vnd.laszip"
    if isinstance(body, PointCloudUpload):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | UploadAccepted:
    if response.status_code == 202:
        response_202 = UploadAccepted.from_dict(response.json())



        return response_202

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | UploadAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body:    File  |     File  |     File  |     PointCloudUpload  | Unset = UNSET,
    name: str | Unset = UNSET,
    crs: str | Unset = UNSET,

) -> Response[Problem | UploadAccepted]:
    """ 
    Args:
        name (str | Unset):
        crs (str | Unset):
        body (File):
        body (File):
        body (File):
        body (PointCloudUpload): An upload as `multipart/form-data`. Example: {'params': '{"name":
            "survey-2026"}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UploadAccepted]
     """


    kwargs = _get_kwargs(
        body=body,
name=name,
crs=crs,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body:    File  |     File  |     File  |     PointCloudUpload  | Unset = UNSET,
    name: str | Unset = UNSET,
    crs: str | Unset = UNSET,

) -> Problem | UploadAccepted | None:
    """ 
    Args:
        name (str | Unset):
        crs (str | Unset):
        body (File):
        body (File):
        body (File):
        body (PointCloudUpload): An upload as `multipart/form-data`. Example: {'params': '{"name":
            "survey-2026"}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UploadAccepted
     """


    return sync_detailed(
        client=client,
body=body,
name=name,
crs=crs,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body:    File  |     File  |     File  |     PointCloudUpload  | Unset = UNSET,
    name: str | Unset = UNSET,
    crs: str | Unset = UNSET,

) -> Response[Problem | UploadAccepted]:
    """ 
    Args:
        name (str | Unset):
        crs (str | Unset):
        body (File):
        body (File):
        body (File):
        body (PointCloudUpload): An upload as `multipart/form-data`. Example: {'params': '{"name":
            "survey-2026"}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UploadAccepted]
     """


    kwargs = _get_kwargs(
        body=body,
name=name,
crs=crs,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body:    File  |     File  |     File  |     PointCloudUpload  | Unset = UNSET,
    name: str | Unset = UNSET,
    crs: str | Unset = UNSET,

) -> Problem | UploadAccepted | None:
    """ 
    Args:
        name (str | Unset):
        crs (str | Unset):
        body (File):
        body (File):
        body (File):
        body (PointCloudUpload): An upload as `multipart/form-data`. Example: {'params': '{"name":
            "survey-2026"}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UploadAccepted
     """


    return (await asyncio_detailed(
        client=client,
body=body,
name=name,
crs=crs,

    )).parsed
