from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.classify_body import ClassifyBody
from ...models.job_view import JobView
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    point_cloud_id: str,
    *,
    body: ClassifyBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/pointcloud/{point_cloud_id}/classify".format(point_cloud_id=quote(str(point_cloud_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> JobView | Problem:
    if response.status_code == 202:
        response_202 = JobView.from_dict(response.json())



        return response_202

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[JobView | Problem]:
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
    body: ClassifyBody,

) -> Response[JobView | Problem]:
    """ 
    Args:
        point_cloud_id (str):
        body (ClassifyBody): The body of `POST /api/v1/pointcloud/{id}/classify` (every member
            optional; `{}` or no body
            runs every step with the defaults). Lengths are metres whatever the file's unit. The
            engine's
            parser (`meridian_pointcloud::pipeline::PipelineParams::from_json`) is the authority: an
            unknown member or a value out of range is a 422 with its JSON pointer. Example:
            {'classes': {'method': 'combined'}, 'ground': {'method': 'smrf', 'window': 24.0}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobView | Problem]
     """


    kwargs = _get_kwargs(
        point_cloud_id=point_cloud_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,
    body: ClassifyBody,

) -> JobView | Problem | None:
    """ 
    Args:
        point_cloud_id (str):
        body (ClassifyBody): The body of `POST /api/v1/pointcloud/{id}/classify` (every member
            optional; `{}` or no body
            runs every step with the defaults). Lengths are metres whatever the file's unit. The
            engine's
            parser (`meridian_pointcloud::pipeline::PipelineParams::from_json`) is the authority: an
            unknown member or a value out of range is a 422 with its JSON pointer. Example:
            {'classes': {'method': 'combined'}, 'ground': {'method': 'smrf', 'window': 24.0}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobView | Problem
     """


    return sync_detailed(
        point_cloud_id=point_cloud_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,
    body: ClassifyBody,

) -> Response[JobView | Problem]:
    """ 
    Args:
        point_cloud_id (str):
        body (ClassifyBody): The body of `POST /api/v1/pointcloud/{id}/classify` (every member
            optional; `{}` or no body
            runs every step with the defaults). Lengths are metres whatever the file's unit. The
            engine's
            parser (`meridian_pointcloud::pipeline::PipelineParams::from_json`) is the authority: an
            unknown member or a value out of range is a 422 with its JSON pointer. Example:
            {'classes': {'method': 'combined'}, 'ground': {'method': 'smrf', 'window': 24.0}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobView | Problem]
     """


    kwargs = _get_kwargs(
        point_cloud_id=point_cloud_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,
    body: ClassifyBody,

) -> JobView | Problem | None:
    """ 
    Args:
        point_cloud_id (str):
        body (ClassifyBody): The body of `POST /api/v1/pointcloud/{id}/classify` (every member
            optional; `{}` or no body
            runs every step with the defaults). Lengths are metres whatever the file's unit. The
            engine's
            parser (`meridian_pointcloud::pipeline::PipelineParams::from_json`) is the authority: an
            unknown member or a value out of range is a 422 with its JSON pointer. Example:
            {'classes': {'method': 'combined'}, 'ground': {'method': 'smrf', 'window': 24.0}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobView | Problem
     """


    return (await asyncio_detailed(
        point_cloud_id=point_cloud_id,
client=client,
body=body,

    )).parsed
