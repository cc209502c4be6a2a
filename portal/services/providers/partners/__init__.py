"""The partner platforms behind one interface each (issue 39, item 5): the research-participant service
(`respondent.ResearchService`) and the panel exchange (`panel_exchange.PanelExchange`), each reached over its HTTP
protocol with httpx. Crowd-work needs no outside call: the requester checks a worker's completion code through the
portal's own API (GET /api/v1/completion-codes/{code})."""

from __future__ import annotations

from portal.services.providers.partners.base import PartnerError
from portal.services.providers.partners.panel_exchange import PanelExchange, panel_exchange
from portal.services.providers.partners.respondent import ResearchService, research_service

__all__ = ["PanelExchange", "PartnerError", "ResearchService", "panel_exchange", "research_service"]
