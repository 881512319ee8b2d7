from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.subscription_with_secret import SubscriptionWithSecret
from typing import cast



def _get_kwargs(
    subscription_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/subscriptions/{subscription_id}/rotate-secret".format(subscription_id=quote(str(subscription_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SubscriptionWithSecret:
    if response.status_code == 200:
        response_200 = SubscriptionWithSecret.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SubscriptionWithSecret]:
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

) -> Response[Problem | SubscriptionWithSecret]:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionWithSecret]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,

) -> Problem | SubscriptionWithSecret | None:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionWithSecret
     """


    return sync_detailed(
        subscription_id=subscription_id,
client=client,

    ).parsed

async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | SubscriptionWithSecret]:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionWithSecret]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,

) -> Problem | SubscriptionWithSecret | None:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionWithSecret
     """


    return (await asyncio_detailed(
        subscription_id=subscription_id,
client=client,

    )).parsed
