""" Contains all the data models used in inputs/outputs """
from __future__ import annotations

from .access_token import AccessToken
from .account_view import AccountView
from .api_key_list import ApiKeyList
from .api_key_view import ApiKeyView
from .attempt_view import AttemptView
from .band_statistics import BandStatistics
from .band_statistics_histogram import BandStatisticsHistogram
from .batch_body import BatchBody
from .batch_result import BatchResult
from .batch_update_body import BatchUpdateBody
from .batch_update_body_flags import BatchUpdateBodyFlags
from .change_list import ChangeList
from .change_list_changes_item import ChangeListChangesItem
from .classify_body import ClassifyBody
from .classify_classes import ClassifyClasses
from .classify_ground import ClassifyGround
from .classify_noise import ClassifyNoise
from .classify_step import ClassifyStep
from .clock import Clock
from .clock_mode import ClockMode
from .compute_output import ComputeOutput
from .compute_request import ComputeRequest
from .compute_request_area import ComputeRequestArea
from .compute_request_bands import ComputeRequestBands
from .compute_request_output import ComputeRequestOutput
from .compute_request_output_formats_item import ComputeRequestOutputFormatsItem
from .compute_request_zones import ComputeRequestZones
from .compute_request_zones_filter_json import ComputeRequestZonesFilterJson
from .compute_result import ComputeResult
from .compute_result_bands import ComputeResultBands
from .conformance import Conformance
from .create_account import CreateAccount
from .create_api_key import CreateApiKey
from .create_dns_webhook import CreateDnsWebhook
from .create_sensor import CreateSensor
from .create_subscription import CreateSubscription
from .create_twin import CreateTwin
from .create_twin_area_type_0 import CreateTwinAreaType0
from .create_zone import CreateZone
from .created_account import CreatedAccount
from .created_api_key import CreatedApiKey
from .dataset_list import DatasetList
from .dataset_view import DatasetView
from .delete_ref import DeleteRef
from .deleted import Deleted
from .delivery_list import DeliveryList
from .delivery_view import DeliveryView
from .delivery_view_event import DeliveryViewEvent
from .dem_job_list import DemJobList
from .dem_job_view import DemJobView
from .dem_job_view_error_type_0 import DemJobViewErrorType0
from .dem_job_view_operations_item import DemJobViewOperationsItem
from .dem_job_view_source import DemJobViewSource
from .dnskey_view import DnskeyView
from .dnssec_view import DnssecView
from .ds_view import DsView
from .event_payload import EventPayload
from .event_type_list import EventTypeList
from .event_type_view import EventTypeView
from .event_type_view_example import EventTypeViewExample
from .feature import Feature
from .feature_collection import FeatureCollection
from .feature_collection_type import FeatureCollectionType
from .feature_patch import FeaturePatch
from .feature_patch_geometry_type_0 import FeaturePatchGeometryType0
from .feature_patch_properties_type_0 import FeaturePatchPropertiesType0
from .feature_properties_type_0 import FeaturePropertiesType0
from .feature_type import FeatureType
from .field_error import FieldError
from .geometry_collection import GeometryCollection
from .geometry_collection_type import GeometryCollectionType
from .health import Health
from .import_result import ImportResult
from .job_accepted import JobAccepted
from .job_accepted_status import JobAcceptedStatus
from .job_list import JobList
from .job_view import JobView
from .landing_page import LandingPage
from .line_string import LineString
from .line_string_type import LineStringType
from .link import Link
from .link_body import LinkBody
from .link_method import LinkMethod
from .multi_line_string import MultiLineString
from .multi_line_string_type import MultiLineStringType
from .multi_point import MultiPoint
from .multi_point_type import MultiPointType
from .multi_polygon import MultiPolygon
from .multi_polygon_type import MultiPolygonType
from .ogc_collection import OgcCollection
from .ogc_collection_extent import OgcCollectionExtent
from .ogc_collections import OgcCollections
from .ogc_landing_page import OgcLandingPage
from .open_api_document import OpenApiDocument
from .open_api_document_info import OpenApiDocumentInfo
from .open_api_document_paths import OpenApiDocumentPaths
from .output_view import OutputView
from .page_meta import PageMeta
from .parcel import Parcel
from .parcel_collection import ParcelCollection
from .parcel_collection_type import ParcelCollectionType
from .parcel_draft import ParcelDraft
from .parcel_draft_collection import ParcelDraftCollection
from .parcel_draft_collection_type import ParcelDraftCollectionType
from .parcel_draft_properties import ParcelDraftProperties
from .parcel_draft_type import ParcelDraftType
from .parcel_history import ParcelHistory
from .parcel_patch import ParcelPatch
from .parcel_patch_geometry_type_0 import ParcelPatchGeometryType0
from .parcel_patch_properties_type_0 import ParcelPatchPropertiesType0
from .parcel_properties import ParcelProperties
from .parcel_type import ParcelType
from .parcel_version import ParcelVersion
from .parcel_version_change import ParcelVersionChange
from .parcel_version_properties_type_0 import ParcelVersionPropertiesType0
from .parcels_registered import ParcelsRegistered
from .pending import Pending
from .pending_status import PendingStatus
from .point import Point
from .point_cloud_list import PointCloudList
from .point_cloud_upload import PointCloudUpload
from .point_cloud_upload_params import PointCloudUploadParams
from .point_cloud_view import PointCloudView
from .point_cloud_view_attributes_type_0 import PointCloudViewAttributesType0
from .point_cloud_view_bounds_type_0 import PointCloudViewBoundsType0
from .point_cloud_view_classification_histogram_type_0 import PointCloudViewClassificationHistogramType0
from .point_cloud_view_classification_type_0 import PointCloudViewClassificationType0
from .point_cloud_view_crs_type_0 import PointCloudViewCrsType0
from .point_cloud_view_error_type_0 import PointCloudViewErrorType0
from .point_cloud_view_links import PointCloudViewLinks
from .point_cloud_view_returns_type_0 import PointCloudViewReturnsType0
from .point_type import PointType
from .polygon import Polygon
from .polygon_type import PolygonType
from .problem import Problem
from .process_request import ProcessRequest
from .process_request_params import ProcessRequestParams
from .process_request_source import ProcessRequestSource
from .process_upload import ProcessUpload
from .process_upload_params import ProcessUploadParams
from .queryables import Queryables
from .queryables_properties import QueryablesProperties
from .queryables_properties_additional_property import QueryablesPropertiesAdditionalProperty
from .reading_in import ReadingIn
from .readings import Readings
from .readings_accepted import ReadingsAccepted
from .readings_buckets_item import ReadingsBucketsItem
from .readings_readings_item import ReadingsReadingsItem
from .record_body import RecordBody
from .record_body_flags import RecordBodyFlags
from .record_list import RecordList
from .record_view import RecordView
from .replay_accepted import ReplayAccepted
from .replay_request import ReplayRequest
from .sensor import Sensor
from .sensor_latest_type_0 import SensorLatestType0
from .sensor_list import SensorList
from .sensor_of_readings import SensorOfReadings
from .sensor_of_readings_type import SensorOfReadingsType
from .sensor_type import SensorType
from .set_time import SetTime
from .skipped_line import SkippedLine
from .stac_asset import StacAsset
from .stac_catalog import StacCatalog
from .stac_catalog_type import StacCatalogType
from .stac_collection import StacCollection
from .stac_collection_summaries import StacCollectionSummaries
from .stac_collection_type import StacCollectionType
from .stac_collections import StacCollections
from .stac_extent import StacExtent
from .stac_extent_spatial import StacExtentSpatial
from .stac_extent_temporal import StacExtentTemporal
from .stac_item import StacItem
from .stac_item_assets import StacItemAssets
from .stac_item_collection import StacItemCollection
from .stac_item_collection_type import StacItemCollectionType
from .stac_item_patch import StacItemPatch
from .stac_item_patch_geometry_type_0 import StacItemPatchGeometryType0
from .stac_item_patch_properties_type_0 import StacItemPatchPropertiesType0
from .stac_item_properties import StacItemProperties
from .stac_item_type import StacItemType
from .stac_item_upload import StacItemUpload
from .stac_items_added import StacItemsAdded
from .stac_search import StacSearch
from .stac_search_fields_type_0 import StacSearchFieldsType0
from .stac_search_filter_lang_type_1 import StacSearchFilterLangType1
from .stac_search_filter_lang_type_2_type_1 import StacSearchFilterLangType2Type1
from .stac_search_filter_lang_type_3_type_1 import StacSearchFilterLangType3Type1
from .stac_search_sortby_type_0_item import StacSearchSortbyType0Item
from .stac_search_sortby_type_0_item_direction import StacSearchSortbyType0ItemDirection
from .statistics_view import StatisticsView
from .subscription_list import SubscriptionList
from .subscription_view import SubscriptionView
from .subscription_with_secret import SubscriptionWithSecret
from .tile_layer_view import TileLayerView
from .tileset import Tileset
from .tileset_asset import TilesetAsset
from .tileset_properties import TilesetProperties
from .tileset_root import TilesetRoot
from .twin_asset import TwinAsset
from .twin_asset_properties import TwinAssetProperties
from .twin_created import TwinCreated
from .twin_created_job import TwinCreatedJob
from .twin_list import TwinList
from .twin_view import TwinView
from .twin_view_area_type_0 import TwinViewAreaType0
from .twin_view_clock import TwinViewClock
from .twin_view_error_type_0 import TwinViewErrorType0
from .twin_view_links import TwinViewLinks
from .twin_view_tileset_type_0 import TwinViewTilesetType0
from .update_subscription import UpdateSubscription
from .upload_accepted import UploadAccepted
from .upload_accepted_job import UploadAcceptedJob
from .zone_list import ZoneList
from .zone_view import ZoneView

__all__ = (
    "AccessToken",
    "AccountView",
    "ApiKeyList",
    "ApiKeyView",
    "AttemptView",
    "BandStatistics",
    "BandStatisticsHistogram",
    "BatchBody",
    "BatchResult",
    "BatchUpdateBody",
    "BatchUpdateBodyFlags",
    "ChangeList",
    "ChangeListChangesItem",
    "ClassifyBody",
    "ClassifyClasses",
    "ClassifyGround",
    "ClassifyNoise",
    "ClassifyStep",
    "Clock",
    "ClockMode",
    "ComputeOutput",
    "ComputeRequest",
    "ComputeRequestArea",
    "ComputeRequestBands",
    "ComputeRequestOutput",
    "ComputeRequestOutputFormatsItem",
    "ComputeRequestZones",
    "ComputeRequestZonesFilterJson",
    "ComputeResult",
    "ComputeResultBands",
    "Conformance",
    "CreateAccount",
    "CreateApiKey",
    "CreatedAccount",
    "CreatedApiKey",
    "CreateDnsWebhook",
    "CreateSensor",
    "CreateSubscription",
    "CreateTwin",
    "CreateTwinAreaType0",
    "CreateZone",
    "DatasetList",
    "DatasetView",
    "Deleted",
    "DeleteRef",
    "DeliveryList",
    "DeliveryView",
    "DeliveryViewEvent",
    "DemJobList",
    "DemJobView",
    "DemJobViewErrorType0",
    "DemJobViewOperationsItem",
    "DemJobViewSource",
    "DnskeyView",
    "DnssecView",
    "DsView",
    "EventPayload",
    "EventTypeList",
    "EventTypeView",
    "EventTypeViewExample",
    "Feature",
    "FeatureCollection",
    "FeatureCollectionType",
    "FeaturePatch",
    "FeaturePatchGeometryType0",
    "FeaturePatchPropertiesType0",
    "FeaturePropertiesType0",
    "FeatureType",
    "FieldError",
    "GeometryCollection",
    "GeometryCollectionType",
    "Health",
    "ImportResult",
    "JobAccepted",
    "JobAcceptedStatus",
    "JobList",
    "JobView",
    "LandingPage",
    "LineString",
    "LineStringType",
    "Link",
    "LinkBody",
    "LinkMethod",
    "MultiLineString",
    "MultiLineStringType",
    "MultiPoint",
    "MultiPointType",
    "MultiPolygon",
    "MultiPolygonType",
    "OgcCollection",
    "OgcCollectionExtent",
    "OgcCollections",
    "OgcLandingPage",
    "OpenApiDocument",
    "OpenApiDocumentInfo",
    "OpenApiDocumentPaths",
    "OutputView",
    "PageMeta",
    "Parcel",
    "ParcelCollection",
    "ParcelCollectionType",
    "ParcelDraft",
    "ParcelDraftCollection",
    "ParcelDraftCollectionType",
    "ParcelDraftProperties",
    "ParcelDraftType",
    "ParcelHistory",
    "ParcelPatch",
    "ParcelPatchGeometryType0",
    "ParcelPatchPropertiesType0",
    "ParcelProperties",
    "ParcelsRegistered",
    "ParcelType",
    "ParcelVersion",
    "ParcelVersionChange",
    "ParcelVersionPropertiesType0",
    "Pending",
    "PendingStatus",
    "Point",
    "PointCloudList",
    "PointCloudUpload",
    "PointCloudUploadParams",
    "PointCloudView",
    "PointCloudViewAttributesType0",
    "PointCloudViewBoundsType0",
    "PointCloudViewClassificationHistogramType0",
    "PointCloudViewClassificationType0",
    "PointCloudViewCrsType0",
    "PointCloudViewErrorType0",
    "PointCloudViewLinks",
    "PointCloudViewReturnsType0",
    "PointType",
    "Polygon",
    "PolygonType",
    "Problem",
    "ProcessRequest",
    "ProcessRequestParams",
    "ProcessRequestSource",
    "ProcessUpload",
    "ProcessUploadParams",
    "Queryables",
    "QueryablesProperties",
    "QueryablesPropertiesAdditionalProperty",
    "ReadingIn",
    "Readings",
    "ReadingsAccepted",
    "ReadingsBucketsItem",
    "ReadingsReadingsItem",
    "RecordBody",
    "RecordBodyFlags",
    "RecordList",
    "RecordView",
    "ReplayAccepted",
    "ReplayRequest",
    "Sensor",
    "SensorLatestType0",
    "SensorList",
    "SensorOfReadings",
    "SensorOfReadingsType",
    "SensorType",
    "SetTime",
    "SkippedLine",
    "StacAsset",
    "StacCatalog",
    "StacCatalogType",
    "StacCollection",
    "StacCollections",
    "StacCollectionSummaries",
    "StacCollectionType",
    "StacExtent",
    "StacExtentSpatial",
    "StacExtentTemporal",
    "StacItem",
    "StacItemAssets",
    "StacItemCollection",
    "StacItemCollectionType",
    "StacItemPatch",
    "StacItemPatchGeometryType0",
    "StacItemPatchPropertiesType0",
    "StacItemProperties",
    "StacItemsAdded",
    "StacItemType",
    "StacItemUpload",
    "StacSearch",
    "StacSearchFieldsType0",
    "StacSearchFilterLangType1",
    "StacSearchFilterLangType2Type1",
    "StacSearchFilterLangType3Type1",
    "StacSearchSortbyType0Item",
    "StacSearchSortbyType0ItemDirection",
    "StatisticsView",
    "SubscriptionList",
    "SubscriptionView",
    "SubscriptionWithSecret",
    "TileLayerView",
    "Tileset",
    "TilesetAsset",
    "TilesetProperties",
    "TilesetRoot",
    "TwinAsset",
    "TwinAssetProperties",
    "TwinCreated",
    "TwinCreatedJob",
    "TwinList",
    "TwinView",
    "TwinViewAreaType0",
    "TwinViewClock",
    "TwinViewErrorType0",
    "TwinViewLinks",
    "TwinViewTilesetType0",
    "UpdateSubscription",
    "UploadAccepted",
    "UploadAcceptedJob",
    "ZoneList",
    "ZoneView",
)
