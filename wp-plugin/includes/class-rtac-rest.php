<?php
/**
 * Every REST route of the plugin, with its schema and permission callback.
 *
 * The public routes need no nonce on purpose: a page cache would serve
 * yesterday's nonce and break the chat. They are guarded by schemas, size
 * limits and per-IP/per-visitor rate limits instead.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Rest {

	const NS = 'rtac/v1';

	private Rtac_Chat $chat;
	private Rtac_Leads $leads;
	private Rtac_Reindexer $reindexer;

	public function __construct( Rtac_Chat $chat, Rtac_Leads $leads, Rtac_Reindexer $reindexer ) {
		$this->chat      = $chat;
		$this->leads     = $leads;
		$this->reindexer = $reindexer;
	}

	public function register_routes(): void {
		register_rest_route(
			self::NS,
			'/chat',
			array(
				'methods'             => WP_REST_Server::CREATABLE,
				'callback'            => array( $this->chat, 'handle' ),
				'permission_callback' => '__return_true', // Anonymous visitors; see the class comment.
				'args'                => array(
					'message'         => array(
						'type'      => 'string',
						'required'  => true,
						'minLength' => 1,
						'maxLength' => Rtac_Protocol::MAX_MESSAGE,
					),
					'conversation_id' => array(
						'type'      => array( 'string', 'null' ),
						'maxLength' => Rtac_Protocol::MAX_CONVERSATION_ID,
					),
					'lang'            => array(
						'type'      => array( 'string', 'null' ),
						'maxLength' => Rtac_Protocol::MAX_LANG,
					),
					'page'            => array(
						'type'       => array( 'object', 'null' ),
						'default'    => array(),
						'properties' => array(
							'url'   => array(
								'type'      => 'string',
								'maxLength' => Rtac_Protocol::MAX_URL,
							),
							'title' => array(
								'type'      => 'string',
								'maxLength' => Rtac_Protocol::MAX_TITLE,
							),
						),
					),
				),
			)
		);

		register_rest_route(
			self::NS,
			'/lead',
			array(
				'methods'             => WP_REST_Server::CREATABLE,
				'callback'            => array( $this->leads, 'handle' ),
				'permission_callback' => '__return_true', // Anonymous visitors; rate limited like the chat.
				'args'                => array(
					'name'            => array(
						'type'      => 'string',
						'required'  => true,
						'minLength' => 1,
						'maxLength' => 200,
					),
					'email'           => array(
						'type'      => array( 'string', 'null' ),
						'maxLength' => 254,
					),
					'phone'           => array(
						'type'      => array( 'string', 'null' ),
						'maxLength' => 40,
					),
					'message'         => array(
						'type'      => array( 'string', 'null' ),
						'maxLength' => Rtac_Protocol::MAX_MESSAGE,
						'default'   => '',
					),
					'consent'         => array(
						'type'     => 'boolean',
						'required' => true,
					),
					'conversation_id' => array(
						'type'      => array( 'string', 'null' ),
						'maxLength' => Rtac_Protocol::MAX_CONVERSATION_ID,
					),
					// The honeypot: hidden in the widget, so only a script fills it. No length
					// limit, so a script's long value gets the same success as any other.
					'website'         => array(
						'type'    => array( 'string', 'null' ),
						'default' => '',
					),
				),
			)
		);

		register_rest_route(
			self::NS,
			'/reindex',
			array(
				'methods'             => WP_REST_Server::CREATABLE,
				'callback'            => array( $this->reindexer, 'rest_batch' ),
				// Cookie-authenticated REST requests also need the wp_rest nonce,
				// so this is capability + nonce.
				'permission_callback' => static function () {
					return Rtac_Capability::can_manage();
				},
				'args'                => array(
					'offset' => array(
						'type'    => 'integer',
						'minimum' => 0,
						'default' => 0,
					),
					'batch'  => array(
						'type'    => 'integer',
						'minimum' => 1,
						'maximum' => 100,
						'default' => Rtac_Reindexer::BATCH,
					),
				),
			)
		);
	}
}
