from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.compute_request import ComputeRequest
from ...models.compute_result import ComputeResult
from ...models.job_accepted import JobAccepted
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    index: str,
    *,
    body: ComputeRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/eo/compute/{index}".format(index=quote(str(index), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ComputeResult | JobAccepted | Problem:
    if response.status_code == 200:
        response_200 = ComputeResult.from_dict(response.json())



        return response_200

    if response.status_code == 202:
        response_202 = JobAccepted.from_dict(response.json())



        return response_202

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ComputeResult | JobAccepted | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    index: str,
    *,
    client: AuthenticatedClient,
    body: ComputeRequest,

) -> Response[ComputeResult | JobAccepted | Problem]:
    """ 
    Args:
        index (str):
        body (ComputeRequest):  Example: {'bands': {'nir': 'B8', 'red': 'B7'}, 'scene':
            'cbers4/scene-1', 'zones': {'collection': 'parcels'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComputeResult | JobAccepted | Problem]
     """


    kwargs = _get_kwargs(
        index=index,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    index: str,
    *,
    client: AuthenticatedClient,
    body: ComputeRequest,

) -> ComputeResult | JobAccepted | Problem | None:
    """ 
    Args:
        index (str):
        body (ComputeRequest):  Example: {'bands': {'nir': 'B8', 'red': 'B7'}, 'scene':
            'cbers4/scene-1', 'zones': {'collection': 'parcels'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComputeResult | JobAccepted | Problem
     """


    return sync_detailed(
        index=index,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    index: str,
    *,
    client: AuthenticatedClient,
    body: ComputeRequest,

) -> Response[ComputeResult | JobAccepted | Problem]:
    """ 
    Args:
        index (str):
        body (ComputeRequest):  Example: {'bands': {'nir': 'B8', 'red': 'B7'}, 'scene':
            'cbers4/scene-1', 'zones': {'collection': 'parcels'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComputeResult | JobAccepted | Problem]
     """


    kwargs = _get_kwargs(
        index=index,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    index: str,
    *,
    client: AuthenticatedClient,
    body: ComputeRequest,

) -> ComputeResult | JobAccepted | Problem | None:
    """ 
    Args:
        index (str):
        body (ComputeRequest):  Example: {'bands': {'nir': 'B8', 'red': 'B7'}, 'scene':
            'cbers4/scene-1', 'zones': {'collection': 'parcels'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComputeResult | JobAccepted | Problem
     """


    return (await asyncio_detailed(
        index=index,
client=client,
body=body,

    )).parsed
