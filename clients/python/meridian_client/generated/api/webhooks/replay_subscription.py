from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.replay_accepted import ReplayAccepted
from ...models.replay_request import ReplayRequest
from typing import cast



def _get_kwargs(
    subscription_id: str,
    *,
    body: ReplayRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/subscriptions/{subscription_id}/replay".format(subscription_id=quote(str(subscription_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ReplayAccepted:
    if response.status_code == 202:
        response_202 = ReplayAccepted.from_dict(response.json())



        return response_202

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ReplayAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: ReplayRequest,

) -> Response[Problem | ReplayAccepted]:
    """ 
    Args:
        subscription_id (str):
        body (ReplayRequest): Body of a replay. Example: {'only_failed': False, 'since':
            '2026-01-01T00:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReplayAccepted]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: ReplayRequest,

) -> Problem | ReplayAccepted | None:
    """ 
    Args:
        subscription_id (str):
        body (ReplayRequest): Body of a replay. Example: {'only_failed': False, 'since':
            '2026-01-01T00:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReplayAccepted
     """


    return sync_detailed(
        subscription_id=subscription_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: ReplayRequest,

) -> Response[Problem | ReplayAccepted]:
    """ 
    Args:
        subscription_id (str):
        body (ReplayRequest): Body of a replay. Example: {'only_failed': False, 'since':
            '2026-01-01T00:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReplayAccepted]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: ReplayRequest,

) -> Problem | ReplayAccepted | None:
    """ 
    Args:
        subscription_id (str):
        body (ReplayRequest): Body of a replay. Example: {'only_failed': False, 'since':
            '2026-01-01T00:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReplayAccepted
     """


    return (await asyncio_detailed(
        subscription_id=subscription_id,
client=client,
body=body,

    )).parsed
