from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.reading_in import ReadingIn
from ...models.readings_accepted import ReadingsAccepted
from typing import cast



def _get_kwargs(
    twin_id: str,
    *,
    body: ReadingIn,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/realtime/twin/{twin_id}/readings".format(twin_id=quote(str(twin_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ReadingsAccepted:
    if response.status_code == 202:
        response_202 = ReadingsAccepted.from_dict(response.json())



        return response_202

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ReadingsAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    body: ReadingIn,

) -> Response[Problem | ReadingsAccepted]:
    """ 
    Args:
        twin_id (str):
        body (ReadingIn): One reading, a batch (`readings`), or an array of readings. Example:
            {'ts': '2026-11-25T08:00:00.250Z', 'value': 12.5}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReadingsAccepted]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    body: ReadingIn,

) -> Problem | ReadingsAccepted | None:
    """ 
    Args:
        twin_id (str):
        body (ReadingIn): One reading, a batch (`readings`), or an array of readings. Example:
            {'ts': '2026-11-25T08:00:00.250Z', 'value': 12.5}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReadingsAccepted
     """


    return sync_detailed(
        twin_id=twin_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    body: ReadingIn,

) -> Response[Problem | ReadingsAccepted]:
    """ 
    Args:
        twin_id (str):
        body (ReadingIn): One reading, a batch (`readings`), or an array of readings. Example:
            {'ts': '2026-11-25T08:00:00.250Z', 'value': 12.5}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReadingsAccepted]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    body: ReadingIn,

) -> Problem | ReadingsAccepted | None:
    """ 
    Args:
        twin_id (str):
        body (ReadingIn): One reading, a batch (`readings`), or an array of readings. Example:
            {'ts': '2026-11-25T08:00:00.250Z', 'value': 12.5}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReadingsAccepted
     """


    return (await asyncio_detailed(
        twin_id=twin_id,
client=client,
body=body,

    )).parsed
