from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.point_cloud_view import PointCloudView
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    point_cloud_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/pointcloud/{point_cloud_id}".format(point_cloud_id=quote(str(point_cloud_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PointCloudView | Problem:
    if response.status_code == 200:
        response_200 = PointCloudView.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PointCloudView | Problem]:
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

) -> Response[PointCloudView | Problem]:
    """ 
    Args:
        point_cloud_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PointCloudView | Problem]
     """


    kwargs = _get_kwargs(
        point_cloud_id=point_cloud_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,

) -> PointCloudView | Problem | None:
    """ 
    Args:
        point_cloud_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PointCloudView | Problem
     """


    return sync_detailed(
        point_cloud_id=point_cloud_id,
client=client,

    ).parsed

async def asyncio_detailed(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[PointCloudView | Problem]:
    """ 
    Args:
        point_cloud_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PointCloudView | Problem]
     """


    kwargs = _get_kwargs(
        point_cloud_id=point_cloud_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    point_cloud_id: str,
    *,
    client: AuthenticatedClient,

) -> PointCloudView | Problem | None:
    """ 
    Args:
        point_cloud_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PointCloudView | Problem
     """


    return (await asyncio_detailed(
        point_cloud_id=point_cloud_id,
client=client,

    )).parsed
