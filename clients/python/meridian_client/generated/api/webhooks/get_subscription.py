from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.subscription_view import SubscriptionView
from typing import cast



def _get_kwargs(
    subscription_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/webhooks/subscriptions/{subscription_id}".format(subscription_id=quote(str(subscription_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SubscriptionView:
    if response.status_code == 200:
        response_200 = SubscriptionView.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SubscriptionView]:
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

) -> Response[Problem | SubscriptionView]:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionView]
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

) -> Problem | SubscriptionView | None:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionView
     """


    return sync_detailed(
        subscription_id=subscription_id,
client=client,

    ).parsed

async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | SubscriptionView]:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionView]
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

) -> Problem | SubscriptionView | None:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionView
     """


    return (await asyncio_detailed(
        subscription_id=subscription_id,
client=client,

    )).parsed
