from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_dns_webhook import CreateDnsWebhook
from ...models.problem import Problem
from ...models.subscription_with_secret import SubscriptionWithSecret
from typing import cast



def _get_kwargs(
    *,
    body: CreateDnsWebhook,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/dns/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SubscriptionWithSecret:
    if response.status_code == 201:
        response_201 = SubscriptionWithSecret.from_dict(response.json())



        return response_201

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
    *,
    client: AuthenticatedClient,
    body: CreateDnsWebhook,

) -> Response[Problem | SubscriptionWithSecret]:
    """ 
    Args:
        body (CreateDnsWebhook): Body of a DNS webhook registration. Example: {'url':
            'https://hooks.example.com/dns'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionWithSecret]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: CreateDnsWebhook,

) -> Problem | SubscriptionWithSecret | None:
    """ 
    Args:
        body (CreateDnsWebhook): Body of a DNS webhook registration. Example: {'url':
            'https://hooks.example.com/dns'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionWithSecret
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateDnsWebhook,

) -> Response[Problem | SubscriptionWithSecret]:
    """ 
    Args:
        body (CreateDnsWebhook): Body of a DNS webhook registration. Example: {'url':
            'https://hooks.example.com/dns'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionWithSecret]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateDnsWebhook,

) -> Problem | SubscriptionWithSecret | None:
    """ 
    Args:
        body (CreateDnsWebhook): Body of a DNS webhook registration. Example: {'url':
            'https://hooks.example.com/dns'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionWithSecret
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
