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
from ...models.update_subscription import UpdateSubscription
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    subscription_id: str,
    *,
    body: UpdateSubscription,
    if_match: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/webhooks/subscriptions/{subscription_id}".format(subscription_id=quote(str(subscription_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SubscriptionView:
    if response.status_code == 200:
        response_200 = SubscriptionView.from_dict(response.json())



        return response_200

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())



        return response_412

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
    body: UpdateSubscription,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | SubscriptionView]:
    """ 
    Args:
        subscription_id (str):
        if_match (None | str | Unset):
        body (UpdateSubscription): Body of a subscription change; absent fields stay as they are.
            Example: {'events': ['*'], 'status': 'paused'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionView]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
body=body,
if_match=if_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateSubscription,
    if_match: None | str | Unset = UNSET,

) -> Problem | SubscriptionView | None:
    """ 
    Args:
        subscription_id (str):
        if_match (None | str | Unset):
        body (UpdateSubscription): Body of a subscription change; absent fields stay as they are.
            Example: {'events': ['*'], 'status': 'paused'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionView
     """


    return sync_detailed(
        subscription_id=subscription_id,
client=client,
body=body,
if_match=if_match,

    ).parsed

async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateSubscription,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | SubscriptionView]:
    """ 
    Args:
        subscription_id (str):
        if_match (None | str | Unset):
        body (UpdateSubscription): Body of a subscription change; absent fields stay as they are.
            Example: {'events': ['*'], 'status': 'paused'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubscriptionView]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
body=body,
if_match=if_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateSubscription,
    if_match: None | str | Unset = UNSET,

) -> Problem | SubscriptionView | None:
    """ 
    Args:
        subscription_id (str):
        if_match (None | str | Unset):
        body (UpdateSubscription): Body of a subscription change; absent fields stay as they are.
            Example: {'events': ['*'], 'status': 'paused'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubscriptionView
     """


    return (await asyncio_detailed(
        subscription_id=subscription_id,
client=client,
body=body,
if_match=if_match,

    )).parsed
