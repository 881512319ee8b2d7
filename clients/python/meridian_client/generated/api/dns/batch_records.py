from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.batch_body import BatchBody
from ...models.batch_result import BatchResult
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    zone_id: str,
    *,
    body: BatchBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/dns/zones/{zone_id}/records/batch".format(zone_id=quote(str(zone_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> BatchResult | Problem:
    if response.status_code == 200:
        response_200 = BatchResult.from_dict(response.json())



        return response_200

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[BatchResult | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    zone_id: str,
    *,
    client: AuthenticatedClient,
    body: BatchBody,

) -> Response[BatchResult | Problem]:
    """ 
    Args:
        zone_id (str):
        body (BatchBody): Creates, updates and deletes, applied together (deletes first, then
            updates, then creates). Example: {'creates': [{'content': '192.0.2.12', 'name': 'api',
            'type': 'A'}], 'deletes': [{'id': 'rec_01m80pxqn5wq755fvheh5647jw'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchResult | Problem]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    zone_id: str,
    *,
    client: AuthenticatedClient,
    body: BatchBody,

) -> BatchResult | Problem | None:
    """ 
    Args:
        zone_id (str):
        body (BatchBody): Creates, updates and deletes, applied together (deletes first, then
            updates, then creates). Example: {'creates': [{'content': '192.0.2.12', 'name': 'api',
            'type': 'A'}], 'deletes': [{'id': 'rec_01m80pxqn5wq755fvheh5647jw'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchResult | Problem
     """


    return sync_detailed(
        zone_id=zone_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    zone_id: str,
    *,
    client: AuthenticatedClient,
    body: BatchBody,

) -> Response[BatchResult | Problem]:
    """ 
    Args:
        zone_id (str):
        body (BatchBody): Creates, updates and deletes, applied together (deletes first, then
            updates, then creates). Example: {'creates': [{'content': '192.0.2.12', 'name': 'api',
            'type': 'A'}], 'deletes': [{'id': 'rec_01m80pxqn5wq755fvheh5647jw'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchResult | Problem]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    zone_id: str,
    *,
    client: AuthenticatedClient,
    body: BatchBody,

) -> BatchResult | Problem | None:
    """ 
    Args:
        zone_id (str):
        body (BatchBody): Creates, updates and deletes, applied together (deletes first, then
            updates, then creates). Example: {'creates': [{'content': '192.0.2.12', 'name': 'api',
            'type': 'A'}], 'deletes': [{'id': 'rec_01m80pxqn5wq755fvheh5647jw'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchResult | Problem
     """


    return (await asyncio_detailed(
        zone_id=zone_id,
client=client,
body=body,

    )).parsed
